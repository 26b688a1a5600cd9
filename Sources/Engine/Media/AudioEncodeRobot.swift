import Basics
import Foundation
import Spec
import Wire

/// `/audio/encode` with ffmpeg: presets mp3, aac, ogg, opus and flac, `bitrate` and `sample_rate`.
struct AudioEncodeRobot: Sendable {
    static let presets: [String: (ext: String, codec: [String])] = [
        "mp3": ("mp3", ["-c:a", "libmp3lame"]),
        "aac": ("m4a", ["-c:a", "aac"]),
        "ogg": ("ogg", ["-c:a", "libvorbis"]),
        "opus": ("opus", ["-c:a", "libopus"]),
        "flac": ("flac", ["-c:a", "flac"]),
    ]

    let ext: String
    let codec: [String]
    let bitrate: Int?
    let sampleRate: Int?

    init(_ parameters: AudioEncode.Parameters) throws(RobotError) {
        guard let preset = Self.presets[parameters.preset] else {
            throw RobotError(code: .invalidStepParameter, message: "preset '\(parameters.preset)' does not run locally; it runs " + Self.presets.keys.sorted().joined(separator: ", "))
        }
        (ext, codec) = preset
        bitrate = parameters.bitrate
        sampleRate = parameters.sampleRate
    }

    func encode(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> AssemblyFile {
        try MediaFacts.checkDuration(of: file, context: context)
        let slot = try ResultSlot(name: file.basename + "." + ext, in: context.folder)
        var arguments = FFmpeg.input(file.path) + ["-vn"] + codec
        if let bitrate, ext != "flac" { arguments += ["-b:a", String(bitrate)] }
        // Opus runs at 48 kHz whatever it is given; the others take the rate asked for.
        if let sampleRate, ext != "opus" { arguments += ["-ar", String(sampleRate)] }
        try FFmpeg.run(arguments + [slot.path], for: file, context: context, code: .audioEncodeValidation)
        return slot.file(from: file)
    }
}

extension AudioEncode: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) throws(RobotError) -> RobotWork { .eachFile(try AudioEncodeRobot(parameters)) }
}

extension AudioEncodeRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { [try encode(file, context: context)] }
}
