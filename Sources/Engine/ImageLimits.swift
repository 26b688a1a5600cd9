internal import CVips
import Foundation

/// The largest images the engine decodes (`RobotLimits.imagePixels`): a small file can declare
/// a huge canvas, which would take gigabytes to decode. Checked from the header alone.
enum ImageLimits {
    /// Refuses the image at `path` (`file`'s bytes, or a page of them such as `x.pdf[page=2]`)
    /// when its header declares more than `limit` pixels, or cannot be read.
    static func check(_ path: String, of file: AssemblyFile, limit: Int) throws(RobotError) {
        if let failure = VipsLibrary.failure {
            throw RobotError(code: .internalCommandError, message: "libvips could not start (\(failure)); install it: apt-get install libvips42")
        }
        guard let header = VipsImageRef(path: path, sequential: true) else {
            let detail = VipsLibrary.lastError().replacingOccurrences(of: file.path, with: file.name)
            throw RobotError(code: .imageResizeError, message: "cannot read '\(file.name)': \(detail)")
        }
        try check(width: header.width, height: header.height, of: file, limit: limit)
    }

    /// Refuses `width` x `height` over `limit` pixels.
    static func check(width: Int32, height: Int32, of file: AssemblyFile, limit: Int) throws(RobotError) {
        guard Int(width) * Int(height) <= limit else {
            throw RobotError(code: .imageTooLarge, message: "'\(file.name)' is \(width)x\(height) pixels; the local engine takes at most \(limit) pixels")
        }
    }
}
