internal import CVips
import Foundation

/// An image held by libvips, released with it.
final class VipsImageRef {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Opens `path`; `nil` when libvips cannot read it.
    convenience init?(path: String, sequential: Bool = false) {
        guard let pointer = pipeline_vips_open(path, sequential ? 1 : 0) else { return nil }
        self.init(pointer)
    }

    deinit { pipeline_vips_release(pointer) }

    /// `path` opened and turned as its EXIF orientation says (a phone's portrait photo stored
    /// landscape stands upright); `nil` when libvips cannot read it.
    static func upright(path: String) -> VipsImageRef? {
        guard let image = VipsImageRef(path: path) else { return nil }
        guard image.orientation != 1 else { return image }
        return .made { pipeline_vips_autorot(image.pointer, $0) }
    }

    /// The EXIF orientation of the header (1-8; 1 without one).
    var orientation: Int32 { pipeline_vips_orientation(pointer) }

    /// Width and height as a person sees the image: swapped when its orientation turns it a quarter.
    var uprightSize: (width: Int32, height: Int32) {
        (5...8).contains(orientation) ? (height, width) : (width, height)
    }

    /// The image without EXIF, XMP, IPTC and text comments (`strip`); its ICC profile is kept, so
    /// colours look the same.
    func withoutMetadata() -> VipsImageRef? {
        .made { pipeline_vips_without_metadata(pointer, $0, 15) }
    }

    /// The image without its IPTC block, which libvips' TIFF saver writes as it came from a JPEG
    /// (Photoshop's resource block where TIFF wants the IPTC records): a damaged tag otherwise.
    func withoutIPTC() -> VipsImageRef? {
        .made { pipeline_vips_without_metadata(pointer, $0, 4) }
    }

    var width: Int32 { pipeline_vips_width(pointer) }
    var pages: Int { Int(pipeline_vips_pages(pointer)) }
    var height: Int32 { pipeline_vips_height(pointer) }

    /// The image an operation produced into `out`; `nil` when it failed.
    static func made(_ operation: (UnsafeMutablePointer<OpaquePointer?>) -> Int32) -> VipsImageRef? {
        var out: OpaquePointer?
        guard operation(&out) == 0, let out else { return nil }
        return VipsImageRef(out)
    }
}

/// How `/image/resize` fits an image into width x height.
enum ResizeStrategy: String, CaseIterable, Sendable {
    /// The strategy a checked option names (its declaration lists the ones run here).
    static func chosen(_ name: String) throws(RobotError) -> ResizeStrategy {
        guard let strategy = ResizeStrategy(rawValue: name) else {
            throw RobotError(code: .invalidStepParameter, message: "resize_strategy '\(name)' does not run locally")
        }
        return strategy
    }

    /// Within the box, aspect kept.
    case fit
    /// Cover the box, then crop the centre.
    case fillcrop
    /// Cut the centre without scaling.
    case crop
    /// Fit, then pad to the box with the background.
    case pad
    /// Exactly the box, aspect ignored.
    case stretch
    /// Cover the box, aspect kept, no crop.
    case minFit = "min_fit"

    /// The resized image of the file at `path`, `width` x `height` (a missing one, 0, follows
    /// the aspect; both missing keep the size); `gravity` says which part `crop` and `fillcrop` keep. `nil` when libvips
    /// fails (see `VipsLibrary.lastError()`). Sizes and boxes are the image's as a person sees it:
    /// its EXIF orientation is applied first (a thumbnail applies it as it loads). `size` is that
    /// upright size, when the header was read already: the strategies that thumbnail from the
    /// file then open it once, to decode it.
    func resize(
        _ path: String, width: Int32, height: Int32, upscale: Bool, background: (Double, Double, Double), gravity: Gravity = .center,
        size: (width: Int32, height: Int32)? = nil
    ) -> VipsImageRef? {
        var opened: VipsImageRef?
        func source() -> VipsImageRef? {
            if opened == nil { opened = VipsImageRef.upright(path: path) }
            return opened
        }
        guard let (sourceWidth, sourceHeight) = size ?? source().map({ ($0.width, $0.height) }) else { return nil }
        // Neither given: the image keeps its size (a format change, a rotation, a watermark).
        let (givenWidth, givenHeight) = width == 0 && height == 0 ? (sourceWidth, sourceHeight) : (width, height)
        let width = givenWidth > 0 ? givenWidth : Int32((Double(sourceWidth) * Double(givenHeight) / Double(sourceHeight)).rounded(.up))
        let height = givenHeight > 0 ? givenHeight : Int32((Double(sourceHeight) * Double(width) / Double(sourceWidth)).rounded(.up))
        let up: Int32 = upscale ? 1 : 0
        switch self {
        case .fit:
            // From the file, so JPEG and WebP can shrink while loading.
            return .made { pipeline_vips_thumbnail(path, $0, width, height, 0, 0, up) }
        case .fillcrop where gravity == .center:
            return .made { pipeline_vips_thumbnail(path, $0, width, height, 1, 0, up) }
        case .fillcrop:
            // Cover the box, then keep the part gravity names.
            var scale = max(Double(width) / Double(sourceWidth), Double(height) / Double(sourceHeight))
            if !upscale { scale = min(scale, 1) }
            guard let source = source(), let covered = VipsImageRef.made({ pipeline_vips_scale(source.pointer, $0, scale) }) else { return nil }
            let cutWidth = min(width, covered.width), cutHeight = min(height, covered.height)
            let (left, top) = gravity.origin(cut: (cutWidth, cutHeight), of: (covered.width, covered.height))
            return .made { pipeline_vips_extract(covered.pointer, $0, left, top, cutWidth, cutHeight) }
        case .stretch:
            return .made { pipeline_vips_thumbnail(path, $0, width, height, 0, 1, up) }
        case .crop:
            let cutWidth = min(width, sourceWidth), cutHeight = min(height, sourceHeight)
            let (left, top) = gravity.origin(cut: (cutWidth, cutHeight), of: (sourceWidth, sourceHeight))
            guard let source = source() else { return nil }
            return .made { pipeline_vips_extract(source.pointer, $0, left, top, cutWidth, cutHeight) }
        case .minFit:
            var scale = max(Double(width) / Double(sourceWidth), Double(height) / Double(sourceHeight))
            if !upscale { scale = min(scale, 1) }
            guard let source = source() else { return nil }
            return .made { pipeline_vips_scale(source.pointer, $0, scale) }
        case .pad:
            guard let fitted = VipsImageRef.made({ pipeline_vips_thumbnail(path, $0, width, height, 0, 0, up) }) else { return nil }
            return .made { pipeline_vips_pad(fitted.pointer, $0, width, height, background.0, background.1, background.2) }
        }
    }
}

/// Which part of an image a crop keeps (`gravity`).
enum Gravity: String, CaseIterable, Sendable {
    case center, top, bottom, left, right
    case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"

    /// The top-left corner of a `cut` taken from an image of `size`.
    func origin(cut: (Int32, Int32), of size: (Int32, Int32)) -> (Int32, Int32) {
        let spareX = size.0 - cut.0, spareY = size.1 - cut.1
        let x: Int32 = [.left, .topLeft, .bottomLeft].contains(self) ? 0 : [.right, .topRight, .bottomRight].contains(self) ? spareX : spareX / 2
        let y: Int32 = [.top, .topLeft, .topRight].contains(self) ? 0 : [.bottom, .bottomLeft, .bottomRight].contains(self) ? spareY : spareY / 2
        return (x, y)
    }
}
