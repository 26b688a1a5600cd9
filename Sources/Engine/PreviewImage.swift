internal import CVips
import Basics
import Foundation

/// Small previews of files, for `pipeline report`: libvips for images (and documents it reads),
/// ffmpeg for a video's frame and an audio file's waveform. Nothing is fetched: only local files.
public enum PreviewImage {
    /// What trying to make a preview came to.
    public enum Outcome: Sendable, Equatable {
        /// The JPEG.
        case made(Data)
        /// The tool ran and could not read the file: it never will, while the file stays as it is.
        case unreadable
        /// The tool could not run (missing, timed out, no room for its output): another time it may.
        case unavailable
    }

    /// What a preview looks like (size aside): changed with the tools' options, so previews kept
    /// from before are made again.
    public static let settings = "v1 jpeg q70-q5 video@0.5s waveform"

    /// A JPEG at most `side` pixels on its longer side, or `nil` when none can be made.
    public static func jpeg(of path: String, mime: String, side: Int = 160) -> Data? {
        if case .made(let data) = make(of: path, mime: mime, side: side) { return data }
        return nil
    }

    /// A JPEG at most `side` pixels on its longer side, or why there is none.
    public static func make(of path: String, mime: String, side: Int = 160) -> Outcome {
        if mime.hasPrefix("video/") { return ffmpeg(["-ss", "0.5", "-i", path, "-frames:v", "1", "-vf", "scale='min(\(side),iw)':-2"], side: side) }
        if mime.hasPrefix("audio/") { return ffmpeg(["-i", path, "-filter_complex", "showwavespic=s=\(side * 2)x\(side / 2)", "-frames:v", "1"], side: side) }
        return thumbnail(path, side: side)
    }

    /// libvips' thumbnail of an image (the first page of a document), as a JPEG.
    static func thumbnail(_ path: String, side: Int) -> Outcome {
        guard VipsLibrary.ready else { return .unavailable }
        guard let image = VipsImageRef.made({ pipeline_vips_thumbnail(path, $0, Int32(side), Int32(side), 0, 0, 0) }) else { return .unreadable }
        let target = NSTemporaryDirectory() + "/pipeline-preview-\(UUID().uuidString).jpg"
        defer { unlink(target) }
        guard pipeline_vips_write(image.pointer, target + "[Q=70,strip]") == 0, let data = FileManager.default.contents(atPath: target) else { return .unavailable }
        return .made(data)
    }

    /// One frame ffmpeg makes with `arguments`, as a JPEG.
    private static func ffmpeg(_ arguments: [String], side: Int) -> Outcome {
        let target = NSTemporaryDirectory() + "/pipeline-preview-\(UUID().uuidString).jpg"
        defer { unlink(target) }
        // Without ffmpeg (or when it runs out of time) there is no preview this time; a file it
        // cannot read has none at all: either way the file is shown by name.
        guard let outcome = try? ChildProcess.runBlocking(["ffmpeg", "-v", "error", "-y"] + arguments + ["-q:v", "5", target], timeout: .seconds(30)) else {  // see above
            return .unavailable
        }
        // A clean exit without a frame (a video shorter than the seek) is as unreadable as an error.
        guard outcome.status == 0, let data = FileManager.default.contents(atPath: target), !data.isEmpty else { return .unreadable }
        return .made(data)
    }
}
