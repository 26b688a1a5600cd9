import Basics
import Foundation
import Spec
import Wire

/// `/audio/waveform` with ffmpeg: a PNG of the waveform (`format: image`, `width` x `height`,
/// `outer_color`), or its peaks as JSON (`format: json`, in audiowaveform's version 2 layout:
/// a minimum and a maximum 16-bit sample per pixel column).
struct AudioWaveformRobot: Sendable {
    let json: Bool
    let width: Int
    let height: Int
    let color: String

    init(_ parameters: AudioWaveform.Parameters) {
        json = parameters.json
        width = parameters.width
        height = parameters.height
        color = parameters.color
    }

    func waveform(of file: AssemblyFile, context: RobotContext) throws(RobotError) -> AssemblyFile {
        try MediaFacts.checkDuration(of: file, context: context)
        if json { return try peaks(of: file, context: context) }
        let slot = try ResultSlot(name: file.basename + ".png", in: context.folder)
        let filter = "aformat=channel_layouts=mono,showwavespic=s=\(width)x\(height):colors=\(color)"
        try FFmpeg.run(FFmpeg.input(file.path) + ["-filter_complex", filter, "-frames:v", "1", "-update", "1", slot.path],
                       for: file, context: context, code: .audioWaveformError)
        return slot.file(from: file)
    }

    /// The peaks: the audio decoded to 8 kHz mono 16-bit samples, cut into `width` columns.
    private func peaks(of file: AssemblyFile, context: RobotContext) throws(RobotError) -> AssemblyFile {
        let slot = try ResultSlot(name: file.basename + ".json", in: context.folder)
        let raw = slot.path + ".raw"
        defer { unlink(raw) }
        try FFmpeg.run(FFmpeg.input(file.path) + ["-vn", "-ac", "1", "-ar", "8000", "-f", "s16le", raw],
                       for: file, context: context, code: .audioWaveformError)
        // Read a piece at a time: four hours of samples are 230 MB. A read that fails fails the
        // step: a waveform of part of the audio is no waveform.
        var info = stat()
        guard stat(raw, &info) == 0, let input = BufferedFileReader(path: raw) else {
            throw RobotError(code: .audioWaveformError, message: "cannot read the samples of '\(file.name)'")
        }
        let perColumn = max(1, (Int(info.st_size / 2) + width - 1) / width)
        var peaks: [JSONValue] = []
        var low = Int16.max, high = Int16.min, inColumn = 0
        do {
            while try input.fill() || input.available.count >= 2 {
                let piece = input.available
                var index = piece.startIndex
                while index + 1 < piece.endIndex {
                    let sample = Int16(bitPattern: UInt16(piece[index]) | UInt16(piece[index + 1]) << 8)
                    low = min(low, sample)
                    high = max(high, sample)
                    inColumn += 1
                    if inColumn == perColumn {
                        peaks += [.int(Int(low)), .int(Int(high))]
                        (low, high, inColumn) = (Int16.max, Int16.min, 0)
                    }
                    index += 2
                }
                input.consume(index - piece.startIndex)
            }
        } catch {
            throw RobotError(code: .audioWaveformError, message: "cannot read the samples of '\(file.name)': \(error.shortReason)")
        }
        if inColumn > 0 { peaks += [.int(Int(low)), .int(Int(high))] }
        let document = JSONValue.object([
            "version": .int(2), "channels": .int(1), "sample_rate": .int(8000), "samples_per_pixel": .int(perColumn),
            "bits": .int(16), "length": .int(peaks.count / 2), "data": .array(peaks),
        ])
        guard FileManager.default.createFile(atPath: slot.path, contents: Data(document.serialized().utf8)) else {
            throw RobotError(code: .internalCommandError, message: "cannot store the waveform of '\(file.name)'")
        }
        return slot.file(from: file)
    }
}

extension AudioWaveform: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork { .eachFile(AudioWaveformRobot(parameters)) }
}

extension AudioWaveformRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { [try waveform(of: file, context: context)] }
}
