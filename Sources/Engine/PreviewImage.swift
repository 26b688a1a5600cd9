internal import CVips
import Basics
import Foundation

/// Small previews of files, for `pipeline report`: libvips for images (and documents it reads),
/// ffmpeg for a video's frame and an audio file's waveform. Nothing is fetched: only local files.
public enum PreviewImage {
    /// A JPEG at most `side` pixels on its longer side, or `nil` when none can be made.
    public static func jpeg(of path: String, mime: String, side: Int = 160) -> Data? {
        if mime.hasPrefix("video/") { return ffmpeg(["-ss", "0.5", "-i", path, "-frames:v", "1", "-vf", "scale='min(\(side),iw)':-2"], side: side) }
        if mime.hasPrefix("audio/") { return ffmpeg(["-i", path, "-filter_complex", "showwavespic=s=\(side * 2)x\(side / 2)", "-frames:v", "1"], side: side) }
        return thumbnail(path, side: side)
    }

    /// libvips' thumbnail of an image (the first page of a document), as a JPEG.
    static func thumbnail(_ path: String, side: Int) -> Data? {
        guard VipsLibrary.ready, let image = VipsImageRef.made({ pipeline_vips_thumbnail(path, $0, Int32(side), Int32(side), 0, 0, 0) }) else { return nil }
        let target = NSTemporaryDirectory() + "/pipeline-preview-\(UUID().uuidString).jpg"
        defer { unlink(target) }
        guard pipeline_vips_write(image.pointer, target + "[Q=70,strip]") == 0 else { return nil }
        return FileManager.default.contents(atPath: target)
    }

    /// One frame ffmpeg makes with `arguments`, as a JPEG.
    private static func ffmpeg(_ arguments: [String], side: Int) -> Data? {
        let target = NSTemporaryDirectory() + "/pipeline-preview-\(UUID().uuidString).jpg"
        defer { unlink(target) }
        // Without ffmpeg, or for a file it cannot read, there is no preview: the file is shown by name.
        guard let outcome = try? ChildProcess.runBlocking(["ffmpeg", "-v", "error", "-y"] + arguments + ["-q:v", "5", target], timeout: .seconds(30)),  // see above
              outcome.status == 0 else { return nil }
        return FileManager.default.contents(atPath: target)
    }
}
