import Basics
internal import CVips
import Foundation
import Spec
import Synchronization

/// `/image/resize`'s watermark: the image at `watermark_url` laid over each resized image at
/// `watermark_position`, `watermark_x_offset`/`watermark_y_offset` pixels in from there, scaled
/// to `watermark_size` (such as `25%` of the image) by `watermark_resize_strategy` (`fit` or
/// `stretch`) and faded by `watermark_opacity`. The URL is fetched once a step, like an import.
final class Watermark: Sendable {
    /// The largest watermark file fetched.
    static let maxBytes: Int64 = 32 << 20

    let url: String
    let position: Gravity
    let offset: (x: Int32, y: Int32)
    /// The share of the image's width and height the watermark may take, or nil for its own size.
    let size: Double?
    let stretches: Bool
    let opacity: Double
    /// The fetched file, once the first image of the step asked for it.
    private let fetched = Mutex<Result<String, RobotError>?>(nil)

    /// The watermark a step asks for.
    init(_ parameters: ImageResize.WatermarkParameters) throws(RobotError) {
        url = parameters.url
        guard let parts = URLComponents(string: url), ["http", "https"].contains(parts.scheme?.lowercased() ?? ""), parts.host?.isEmpty == false else {
            throw RobotError(code: .invalidStepParameter, message: "watermark_url '\(RemoteFetcher.shown(url))' is not an http(s) URL with a host")
        }
        guard let position = Gravity(rawValue: parameters.position) else {
            throw RobotError(code: .invalidStepParameter, message: "watermark_position '\(parameters.position)' does not run locally")
        }
        self.position = position
        offset = (Int32(parameters.offset.x), Int32(parameters.offset.y))
        size = parameters.size
        stretches = parameters.stretches
        opacity = parameters.opacity
    }

    /// `image` with the watermark laid over it; the watermark is fetched by the first call.
    func apply(to image: VipsImageRef, context: RobotContext) throws(RobotError) -> VipsImageRef {
        // Checked whole when fetched: it opens and decodes.
        guard let mark = VipsImageRef(path: try fetch(context: context)) else {
            _ = VipsLibrary.lastError()
            throw notAnImage
        }
        var overlay = mark
        if let size {
            let boxWidth = Double(image.width) * size, boxHeight = Double(image.height) * size
            let scaleX = boxWidth / Double(mark.width), scaleY = boxHeight / Double(mark.height)
            let scaled = stretches
                ? VipsImageRef.made { pipeline_vips_scale_each(mark.pointer, $0, scaleX, scaleY) }
                : VipsImageRef.made { pipeline_vips_scale(mark.pointer, $0, min(scaleX, scaleY)) }
            guard let scaled else { throw RobotError(code: .imageResizeError, message: "cannot scale the watermark: \(VipsLibrary.lastError())") }
            overlay = scaled
        }
        let spare = (image.width - overlay.width, image.height - overlay.height)
        let (left, top) = position.origin(cut: (overlay.width, overlay.height), of: (image.width, image.height))
        // Offsets count in from the edge the position names; from the centre they move right and down.
        let x = left + (left == spare.0 && left != 0 ? -offset.x : offset.x)
        let y = top + (top == spare.1 && top != 0 ? -offset.y : offset.y)
        guard x < image.width, y < image.height, x + overlay.width > 0, y + overlay.height > 0 else {
            throw RobotError(code: .invalidStepParameter, message: "the watermark falls outside the \(image.width)x\(image.height) image "
                             + "(at \(x),\(y)); make watermark_x_offset and watermark_y_offset smaller")
        }
        guard let marked = VipsImageRef.made({ pipeline_vips_overlay(image.pointer, overlay.pointer, $0, x, y, opacity) }) else {
            throw RobotError(code: .imageResizeError, message: "cannot lay the watermark over the image: \(VipsLibrary.lastError())")
        }
        return marked
    }

    private var notAnImage: RobotError {
        RobotError(code: .imageResizeError, message: "the watermark at \(RemoteFetcher.shown(url)) is not an image libvips reads, or it is damaged")
    }

    /// Removes the fetched file (once the step is done).
    func remove() {
        if case .success(let path)? = fetched.withLock({ $0 }) { unlink(path) }
    }

    private func fetch(context: RobotContext) throws(RobotError) -> String {
        let outcome = fetched.withLock { cached -> Result<String, RobotError> in
            if let cached { return cached }
            let result = Result { () throws(RobotError) -> String in
                do { try FileManager.default.createDirectory(atPath: context.folder, withIntermediateDirectories: true) } catch {
                    throw RobotError(code: .internalCommandError, message: "cannot store the watermark: \((error as NSError).localizedDescription)")
                }
                let path = context.folder + "/.watermark-" + AssemblyFile.newID()
                let fetcher = RemoteFetcher(limits: context.limits, maxBytes: Self.maxBytes)
                do throws(RobotError) {
                    _ = try fetcher.fetch(url, to: path, isCanceled: context.isCanceled)
                    guard let header = VipsImageRef(path: path, sequential: true) else {
                        _ = VipsLibrary.lastError()
                        throw notAnImage
                    }
                    let file = AssemblyFile(id: "", name: "watermark", field: "", originalID: "", originalName: "watermark", path: path, size: 0, mime: "", meta: [:], isTusFile: false)
                    try ImageLimits.check(width: header.width, height: header.height, of: file, limit: context.limits.imagePixels)
                    // Decoded once, here: a damaged watermark is blamed on the watermark, not on an image of the step.
                    guard let opened = VipsImageRef(path: path), let decoded = pipeline_vips_decoded(opened.pointer) else {
                        _ = VipsLibrary.lastError()
                        throw notAnImage
                    }
                    pipeline_vips_release(decoded)
                } catch {
                    unlink(path)
                    throw error
                }
                return path
            }
            cached = result
            return result
        }
        return try outcome.get()
    }
}
