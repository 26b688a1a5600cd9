internal import CVips
import Foundation
import Basics
import Spec

/// `/image/resize` with libvips: width, height, resize_strategy, format, quality, background, zoom,
/// strip, progressive, rotation (quarter turns; the image's own orientation is always applied),
/// gravity, crop regions, trim_whitespace and a watermark.
struct ImageResizeRobot: Sendable {
    static let formats = Set(ImageResize.Parameters.Option.format.localValues ?? [])

    let width: Int32
    let height: Int32
    let strategy: ResizeStrategy
    let format: String?
    let quality: Int?
    let background: (Double, Double, Double)
    let upscale: Bool
    let strip: Bool
    let progressive: Bool
    let quarterTurns: Int32
    let gravity: Gravity
    /// A region cut from the image before it is resized: x1, y1, x2, y2 in pixels.
    let region: ImageResize.Region?
    /// Whether edges of the background colour are trimmed away before resizing.
    let trim: Bool
    let watermark: Watermark?

    init(_ parameters: ImageResize.Parameters) throws(RobotError) {
        width = Int32(parameters.width)
        height = Int32(parameters.height)
        strategy = try ResizeStrategy.chosen(parameters.resizeStrategy)
        format = parameters.format
        quality = parameters.quality
        background = Self.color(parameters.background)
        upscale = parameters.zoom
        guard let gravity = Gravity(rawValue: parameters.gravity) else {
            throw RobotError(code: .invalidStepParameter, message: "gravity '\(parameters.gravity)' does not run locally")
        }
        self.gravity = gravity
        region = parameters.crop
        trim = parameters.trimWhitespace
        strip = parameters.strip
        progressive = parameters.progressive
        watermark = try parameters.watermark.map { parameters throws(RobotError) in try Watermark(parameters) }
        quarterTurns = Int32(parameters.quarterTurns)
    }

    func resize(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> AssemblyFile {
        let folder = context.folder, limits = context.limits
        if let failure = VipsLibrary.failure {
            throw RobotError(code: .internalCommandError, message: "libvips could not start (\(failure)); install it: apt-get install libvips42")
        }
        // The size the engine read from the file's header when it stored the file, else read now.
        var size = file.imageSize
        if size == nil {
            if let header = VipsImageRef(path: file.path, sequential: true) {
                size = header.uprightSize
            } else {
                _ = VipsLibrary.lastError()  // the resize below fails and says why
            }
        }
        if let size {
            try ImageLimits.check(width: size.width, height: size.height, of: file, limit: limits.imagePixels)
        }
        let ext = format ?? (Self.formats.contains(file.ext) ? file.ext : "png")
        let slot = try ResultSlot(name: file.basename + "." + ext, in: folder)
        // Not the saver's own `strip`, which drops the ICC profile too (colours change); what
        // `strip` removes is taken from the image itself below.
        let saving = (quality.map { ["Q=\($0)"] } ?? []) + (progressive && ["jpg", "jpeg", "png"].contains(ext) ? ["interlace"] : [])
        let target = saving.isEmpty ? slot.path : slot.path + "[" + saving.joined(separator: ",") + "]"
        // A region (given, or the trimmed content) is cut first, into a file in libvips' own format
        // that the resize then reads.
        var source = file.path
        let trimmed = trim && region == nil ? try trimmedRegion(of: file) : nil
        if let region = region ?? trimmed {
            source = slot.path + ".region.v"
            try cut(region, from: file, into: source)
        }
        defer { if source != file.path { unlink(source) } }
        var resized = strategy.resize(
            source, width: width, height: height, upscale: upscale, background: background, gravity: gravity, size: source == file.path ? size : nil)
        if quarterTurns != 0, let image = resized {
            resized = VipsImageRef.made { pipeline_vips_rotate(image.pointer, $0, quarterTurns) }
        }
        if let watermark, let image = resized {
            resized = try watermark.apply(to: image, context: context)
        }
        // Removed from the image itself, nothing private is written in any format (the saver's
        // own `strip` leaves WebP's EXIF and XMP), and the colour profile stays.
        if strip, let image = resized {
            resized = image.withoutMetadata()
        } else if ["tif", "tiff"].contains((slot.path as NSString).pathExtension.lowercased()), let image = resized {
            resized = image.withoutIPTC()
        }
        guard let resized, pipeline_vips_write(resized.pointer, target) == 0 else {
            // libvips names the files it read and wrote: say the upload's name, never the engine's folders.
            let detail = VipsLibrary.lastError().replacingOccurrences(of: file.path, with: file.name)
                .replacingOccurrences(of: target, with: slot.name)
            // libvips says nothing of some files that only begin like an image (a PNG signature alone).
            let reason = detail.isEmpty ? "it is not an image libvips can read (damaged, cut short or empty)" : detail
            throw RobotError(code: .imageResizeError, message: "cannot resize '\(file.name)': \(reason)")
        }
        try ExifChunkRepair.repair(slot.path, format: (slot.path as NSString).pathExtension.lowercased(), strip: strip)
        return slot.file(from: file, imageSize: (Int(resized.width), Int(resized.height)))
    }

    /// The box around what differs from the image's background colour; nil when nothing does.
    private func trimmedRegion(of file: AssemblyFile) throws(RobotError) -> ImageResize.Region? {
        guard let image = VipsImageRef.upright(path: file.path) else {
            throw RobotError(code: .imageResizeError, message: "cannot resize '\(file.name)': \(VipsLibrary.lastError().replacingOccurrences(of: file.path, with: file.name))")
        }
        var left: Int32 = 0, top: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        guard pipeline_vips_find_trim(image.pointer, &left, &top, &width, &height) == 0 else {
            throw RobotError(code: .imageResizeError, message: "cannot trim '\(file.name)': \(VipsLibrary.lastError().replacingOccurrences(of: file.path, with: file.name))")
        }
        guard width > 0, height > 0 else { return nil }
        return ImageResize.Region(x1: Int(left), y1: Int(top), x2: Int(left + width), y2: Int(top + height))
    }

    private func cut(_ region: ImageResize.Region, from file: AssemblyFile, into path: String) throws(RobotError) {
        guard let image = VipsImageRef.upright(path: file.path) else {
            throw RobotError(code: .imageResizeError, message: "cannot resize '\(file.name)': \(VipsLibrary.lastError().replacingOccurrences(of: file.path, with: file.name))")
        }
        guard region.x1 < Int(image.width), region.y1 < Int(image.height) else {
            throw RobotError(code: .invalidStepParameter, message: "'crop' starts outside '\(file.name)' (\(image.width)x\(image.height))")
        }
        let width = Int32(min(region.x2, Int(image.width)) - region.x1), height = Int32(min(region.y2, Int(image.height)) - region.y1)
        guard let cut = VipsImageRef.made({ pipeline_vips_extract(image.pointer, $0, Int32(region.x1), Int32(region.y1), width, height) }),
              pipeline_vips_write(cut.pointer, path) == 0 else {
            throw RobotError(code: .imageResizeError, message: "cannot crop '\(file.name)': \(VipsLibrary.lastError().replacingOccurrences(of: file.path, with: file.name))")
        }
    }

    /// `#rrggbb` (or `rrggbb`) as 0-255 channels; white when unreadable.
    static func color(_ text: String) -> (Double, Double, Double) {
        let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard hex.count == 6, let value = Int(hex, radix: 16) else { return (255, 255, 255) }
        return (Double((value >> 16) & 0xFF), Double((value >> 8) & 0xFF), Double(value & 0xFF))
    }
}

extension ImageResize: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) throws(RobotError) -> RobotWork {
        .eachFile(try ImageResizeRobot(parameters))
    }
}

extension ImageResizeRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        [try resize(file, context: context)]
    }

    func finish() { watermark?.remove() }

    var decodesImages: Bool { true }
}
