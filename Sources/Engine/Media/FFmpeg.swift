import Basics
import Foundation
import Wire

/// Runs ffmpeg and ffprobe for the media robots: argument arrays, never a shell; inputs only
/// through the demuxers of ordinary media files (no playlists or concat lists, which could make
/// ffmpeg read other files or fetch URLs) and the `file` protocol; a time limit per run; killed
/// as soon as the Assembly is canceled.
enum FFmpeg {
    /// How long one ffmpeg run may take.
    static let timeLimit: Duration = .seconds(15 * 60)
    /// How long reading a file's facts may take (it reads headers, not the whole file).
    static let probeTimeLimit: Duration = .seconds(60)

    /// The demuxers inputs may be read with.
    static let formats = [
        "mov", "matroska", "webm", "avi", "mpegts", "flv", "ogg", "wav", "mp3", "flac", "aac", "asf", "mpeg", "m4v", "h264",
        "hevc", "gif", "aiff", "amr", "ac3", "w64", "caf", "mxf", "dv", "ivf", "png_pipe", "jpeg_pipe", "webp_pipe",
    ].joined(separator: ",")

    /// The input options that pin a file to those demuxers and to the file protocol.
    static func input(_ path: String) -> [String] {
        ["-format_whitelist", formats, "-protocol_whitelist", "file", "-i", "file:" + path]
    }

    /// Runs `ffmpeg` with `arguments` for `file`; a failure becomes `code` with ffmpeg's first lines.
    static func run(_ arguments: [String], for file: AssemblyFile, context: RobotContext, code: APIErrorCode) throws(RobotError) {
        _ = try execute(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments, for: file, context: context, code: code, timeout: timeLimit)
    }

    /// What ffprobe reports of `file`'s container and streams (JSON).
    static func probe(_ path: String, name: String, context: RobotContext? = nil) throws(RobotError) -> JSONValue {
        let file = AssemblyFile(id: "", name: name, field: "", originalID: "", originalName: name, path: path, size: 0, mime: "", meta: [:], isTusFile: false)
        let output = try execute(
            ["ffprobe", "-v", "error", "-print_format", "json", "-show_format", "-show_streams", "-format_whitelist", formats,
             "-protocol_whitelist", "file", "file:" + path],
            for: file, context: context, code: .fileMetaDataError, timeout: probeTimeLimit)
        do { return try JSONValue.parse(Data(output.utf8)) } catch {
            throw RobotError(code: .fileMetaDataError, message: "cannot read the media facts of '\(name)': ffprobe's answer is not JSON (\(error))")
        }
    }

    private static func execute(_ command: [String], for file: AssemblyFile, context: RobotContext?, code: APIErrorCode, timeout: Duration) throws(RobotError) -> String {
        try RobotTool.run(command, for: file, action: "process", code: code, context: context, timeout: timeout, package: "ffmpeg")
    }
}
