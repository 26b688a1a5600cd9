internal import CVips
import Foundation
import Basics

/// Describes a stored file: its media type (by its content where that is known) and, for images, its dimensions (read from the
/// header with libvips, without decoding the pixels); for PDFs, the page count and the first
/// page's size; for audio and video, what ffprobe reports.
enum FileFacts {
    /// `imageSize`, when the caller made the image, spares reading its header again. Without
    /// `facts`, only the media type is learnt (from the first bytes): the facts that take a
    /// program or a library (ffprobe for media, libvips for images) are `meta(of:)`'s, later.
    static func describe(
        id: String, name: String, field: String, path: String, size: Int64, mime: String?, isTus: Bool,
        original: (id: String, name: String)? = nil, imageSize: (width: Int, height: Int)? = nil, facts: Bool = true
    ) -> AssemblyFile {
        let claimed = (mime?.isEmpty == false && mime != "application/octet-stream") ? mime ?? "" : MediaTypes.guess(name)
        let type = ContentSniffing.mediaType(of: path, claimed: claimed)
        var meta: [String: JSONValue] = [:]
        if let imageSize, type.hasPrefix("image/") {
            meta = ["width": .int(imageSize.width), "height": .int(imageSize.height)]
        } else if facts {
            meta = Self.meta(of: path, name: name, type: type)
        }
        return AssemblyFile(
            id: id, name: name, field: field, originalID: original?.id ?? id, originalName: original?.name ?? name, path: path,
            size: size, mime: type, meta: meta, isTusFile: isTus)
    }

    /// Width and height of an image; page count and size of a PDF; what ffprobe reports of
    /// audio and video; nothing for other files, or for one that cannot be read.
    static func meta(of path: String, name: String, type: String) -> [String: JSONValue] {
        if type.hasPrefix("image/"), let (width, height) = VipsLibrary.size(of: path) {
            return ["width": .int(width), "height": .int(height)]
        } else if type == "application/pdf", let (pages, width, height) = VipsLibrary.pages(of: path) {
            return ["page_count": .int(pages), "width": .int(width), "height": .int(height)]
        } else if type.hasPrefix("video/") || type.hasPrefix("audio/"), let facts = try? MediaFacts(path: path, name: name) {  // unreadable media: no meta, the file is kept
            return facts.meta
        }
        return [:]
    }

    /// Whether a file of `type` has facts that `meta(of:)` reads.
    static func hasFacts(_ type: String) -> Bool {
        type.hasPrefix("image/") || type.hasPrefix("video/") || type.hasPrefix("audio/") || type == "application/pdf"
    }
}

/// libvips, loaded and started once per process, when the engine first reads an image.
enum VipsLibrary {
    /// Why libvips could not be loaded or started; nil once it runs.
    static let failure: String? = {
        var buffer = [CChar](repeating: 0, count: 512)
        guard pipeline_vips_init(&buffer, buffer.count) != 0 else {
            VipsWarnings.install()
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// Whether libvips runs.
    static var ready: Bool { failure == nil }

    /// The last libvips error.
    static func lastError() -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        pipeline_vips_error(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: "; ")
    }

    /// The page count and the first page's width and height of a document.
    static func pages(of path: String) -> (Int, Int, Int)? {
        guard ready else { return nil }
        guard let document = VipsImageRef(path: path, sequential: true) else {
            _ = lastError()
            return nil
        }
        return (document.pages, Int(document.width), Int(document.height))
    }

    /// Width and height from the image header, as a person sees the image (its EXIF orientation applied).
    static func size(of path: String) -> (Int, Int)? {
        guard ready else { return nil }
        guard let image = VipsImageRef(path: path, sequential: true) else {
            _ = lastError()
            return nil
        }
        let size = image.uprightSize
        return (Int(size.width), Int(size.height))
    }
}
