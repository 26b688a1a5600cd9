import Basics
import Foundation
import Spec
import Wire

/// `/meta/write`: writes `data_to_write` into each file without re-encoding it. Images go through
/// exiftool, whose tag names are the keys (`Copyright`, `Artist`, `XMP-dc:Creator`), as on the
/// service; audio and video through ffmpeg's stream copy into the same container, with the keys
/// lower-cased (`copyright`). The kind is read from the content, not the name. Files of other
/// kinds are not taken, like the service's robot does.
struct MetaWriteRobot: Sendable {
    let entries: [(key: String, value: String)]

    init(_ parameters: MetaWrite.Parameters) {
        entries = parameters.entries
    }

    /// `file` with the metadata written, or nothing when it is no image, audio or video. The tool
    /// and the container follow the file's content, whatever its name says.
    func write(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        if let image = ContentSniffing.imageExtension(of: file.path) {
            try ImageLimits.check(file.path, of: file, limit: context.limits.imagePixels)
            return [try writeImage(file, as: image, context: context)]
        }
        guard let muxer = try Self.muxer(of: file, context: context) else { return [] }
        try MediaFacts.checkDuration(of: file, context: context)
        let slot = try ResultSlot(name: file.name, in: context.folder)
        var arguments = FFmpeg.input(file.path) + ["-map", "0", "-map_metadata", "0", "-c", "copy"]
        for (key, value) in entries {
            arguments += ["-metadata", (key.split(separator: ":").last.map(String.init) ?? key).lowercased() + "=" + value]
        }
        if ["mp4", "mov"].contains(muxer) { arguments += ["-movflags", "use_metadata_tags"] }
        try FFmpeg.run(arguments + ["-f", muxer, slot.path], for: file, context: context, code: .metaWriteError)
        return [slot.file(from: file)]
    }

    /// Writes the tags with exiftool into a copy named by what the file is (exiftool refuses a
    /// JPEG called `.png`); no configuration file is read.
    private func writeImage(_ file: AssemblyFile, as pathExtension: String, context: RobotContext) throws(RobotError) -> AssemblyFile {
        let slot = try ResultSlot(name: file.name, in: context.folder)
        let work = FolderPath.of(slot.path) + "/.metadata." + pathExtension
        do {
            try FileManager.default.copyItem(atPath: file.path, toPath: work)
        } catch {
            throw RobotError(code: .internalCommandError, message: "cannot store the result of '\(file.name)'")
        }
        let command = ["exiftool", "-config", "", "-q", "-q", "-charset", "UTF8", "-overwrite_original"]
            + entries.map { "-\($0.key)=\($0.value)" } + [work]
        _ = try RobotTool.run(command, for: file, action: "write the metadata of", code: .metaWriteError, context: context,
                              timeout: .seconds(120), package: "libimage-exiftool-perl", hiding: [work])
        guard rename(work, slot.path) == 0 else {
            throw RobotError(code: .internalCommandError, message: "cannot store the result of '\(file.name)'")
        }
        return slot.file(from: file)
    }

    /// The ffmpeg muxer that keeps the container the file's content has, or nil when it is no
    /// audio or video the engine reads.
    static func muxer(of file: AssemblyFile, context: RobotContext) throws(RobotError) -> String? {
        let probe: JSONValue
        do {
            probe = try FFmpeg.probe(file.path, name: file.name, context: context)
        } catch where error.code == RobotError.canceled.code {
            throw error
        } catch {
            return nil
        }
        let streams = probe["streams"]?.arrayValue ?? []
        guard streams.contains(where: { ["audio", "video"].contains($0["codec_type"]?.stringValue) }),
              let demuxer = probe["format"]?["format_name"]?.stringValue?.split(separator: ",").first.map(String.init) else { return nil }
        switch demuxer {
        case "mov": return file.ext == "mov" ? "mov" : "mp4"
        case "matroska": return file.ext == "webm" ? "webm" : "matroska"
        case "avi", "mpegts", "flv", "ogg", "wav", "mp3", "flac", "asf", "aiff", "w64", "caf", "mxf", "dv", "mpeg": return demuxer
        // Raw streams (h264, aac…) have no container to hold tags.
        default: return nil
        }
    }
}

extension MetaWrite: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork { .eachFile(MetaWriteRobot(parameters)) }
}

extension MetaWriteRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { try write(file, context: context) }
}
