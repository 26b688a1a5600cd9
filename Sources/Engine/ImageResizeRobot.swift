import CVips
import Foundation
import Basics

/// `/image/resize` with libvips: width, height, resize_strategy, format, quality, background, zoom,
/// strip, progressive and rotation (quarter turns; the image's own orientation is always applied).
struct ImageResizeRobot: Sendable {
    static let formats: Set<String> = ["jpg", "jpeg", "png", "webp", "gif", "tiff", "avif"]

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

    init(options: [String: JSONValue]) throws(RobotError) {
        func dimension(_ key: String) throws(RobotError) -> Int32 {
            guard let value = options[key] else { return 0 }
            guard let number = value.intValue, (1...20_000).contains(number) else {
                throw RobotError(code: "INVALID_STEP_PARAMETER", message: "'\(key)' must be a whole number from 1 to 20000")
            }
            return Int32(number)
        }
        width = try dimension("width")
        height = try dimension("height")
        guard width > 0 || height > 0 else { throw RobotError(code: "INVALID_STEP_PARAMETER", message: "give 'width', 'height' or both") }
        let name = options["resize_strategy"]?.stringValue ?? "fit"
        guard let strategy = ResizeStrategy(rawValue: name) else {
            throw RobotError(code: "INVALID_STEP_PARAMETER", message: "resize_strategy '\(name)' is not one of " + ResizeStrategy.allCases.map(\.rawValue).sorted().joined(separator: ", "))
        }
        self.strategy = strategy
        format = options["format"]?.stringValue?.lowercased()
        if let format, !Self.formats.contains(format) {
            throw RobotError(code: "INVALID_STEP_PARAMETER", message: "format '\(format)' is not one of " + Self.formats.sorted().joined(separator: ", "))
        }
        quality = options["quality"]?.intValue
        background = Self.color(options["background"]?.stringValue ?? "#ffffff")
        upscale = options["zoom"]?.boolValue ?? true
        strip = try StepOptions(options: options).bool("strip", default: false)
        progressive = try StepOptions(options: options).bool("progressive", default: false)
        switch options["rotation"] {
        case nil, .bool, .string("auto"):
            quarterTurns = 0
        case .some(let value):
            guard let degrees = value.intValue, degrees % 90 == 0 else {
                throw RobotError(code: "INVALID_STEP_PARAMETER", message: "rotation \(value.serialized()) does not run locally; give true, \"auto\" or a multiple of 90")
            }
            quarterTurns = Int32(((degrees / 90) % 4 + 4) % 4)
        }
    }

    func resize(_ file: AssemblyFile, into folder: String, limits: RobotLimits) throws(RobotError) -> AssemblyFile {
        if let failure = VipsLibrary.failure {
            throw RobotError(code: "INTERNAL_COMMAND_ERROR", message: "libvips could not start (\(failure)); install it: apt-get install libvips42")
        }
        if let header = VipsImageRef(path: file.path, sequential: true) {
            try ImageLimits.check(width: header.width, height: header.height, of: file, limit: limits.imagePixels)
        } else {
            _ = VipsLibrary.lastError()  // the resize below fails and says why
        }
        let ext = format ?? (Self.formats.contains(file.ext) ? file.ext : "png")
        let slot = try ResultSlot(name: file.basename + "." + ext, in: folder)
        let saving = (quality.map { ["Q=\($0)"] } ?? []) + (strip ? ["strip"] : []) + (progressive && ["jpg", "jpeg", "png"].contains(ext) ? ["interlace"] : [])
        let target = saving.isEmpty ? slot.path : slot.path + "[" + saving.joined(separator: ",") + "]"
        var resized = strategy.resize(file.path, width: width, height: height, upscale: upscale, background: background)
        if quarterTurns != 0, let image = resized {
            resized = VipsImageRef.made { pipeline_vips_rotate(image.pointer, $0, quarterTurns) }
        }
        guard let resized, pipeline_vips_write(resized.pointer, target) == 0 else {
            // libvips names the files it read and wrote: say the upload's name, never the engine's folders.
            let detail = VipsLibrary.lastError().replacingOccurrences(of: file.path, with: file.name)
                .replacingOccurrences(of: target, with: slot.name)
            throw RobotError(code: "IMAGE_RESIZE_ERROR", message: "cannot resize '\(file.name)': \(detail)")
        }
        return slot.file(from: file)
    }

    /// `#rrggbb` (or `rrggbb`) as 0-255 channels; white when unreadable.
    static func color(_ text: String) -> (Double, Double, Double) {
        let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard hex.count == 6, let value = Int(hex, radix: 16) else { return (255, 255, 255) }
        return (Double((value >> 16) & 0xFF), Double((value >> 8) & 0xFF), Double(value & 0xFF))
    }
}
