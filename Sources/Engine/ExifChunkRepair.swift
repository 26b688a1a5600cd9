import Foundation

/// The EXIF libvips writes made valid for the container, or gone under `strip`:
/// - WebP: libvips writes the EXIF chunk with the `Exif\0\0` prefix of a JPEG's APP1 segment, which
///   the WebP container does not have; readers take such a chunk as damaged ("Improper EXIF header").
///   It writes one (orientation, resolution) even when the image has no metadata left.
/// - PNG: libvips writes the `eXIf` chunk twice, before and after the image data; PNG allows one
///   (readers see an IFD that points back at itself).
enum ExifChunkRepair {
    /// Repairs the file at `path`, written as `format` (`webp`, `png`; others are left), in place;
    /// with `strip`, a WebP loses its EXIF and XMP chunks instead.
    static func repair(_ path: String, format: String, strip: Bool) throws(RobotError) {
        guard format == "webp" || (format == "png" && !strip), let data = FileManager.default.contents(atPath: path) else { return }
        guard let repaired = format == "webp" ? webp(data, dropping: strip) : png(data) else { return }
        do {
            try repaired.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw RobotError(code: .imageResizeError, message: "cannot write the image's metadata: \(error.localizedDescription)")
        }
    }

    /// The WebP with its EXIF chunk's prefix dropped, or (`dropping`) without its EXIF and XMP
    /// chunks and the extended header's flags for them; nil when there is nothing to change.
    static func webp(_ data: Data, dropping: Bool = false) -> Data? {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) else { return nil }
        let prefix = Array("Exif\0\0".utf8)
        var output = Array(bytes[0..<12])
        var offset = 12
        var changed = false
        while offset + 8 <= bytes.count {
            let size = Int(littleEndian(bytes[offset + 4..<offset + 8]))
            let end = offset + 8 + size
            guard end <= bytes.count else { return nil }
            let type = bytes[offset..<offset + 4]
            var body = Array(bytes[offset + 8..<end])
            offset = end + size % 2
            if dropping, type.elementsEqual("EXIF".utf8) || type.elementsEqual("XMP ".utf8) {
                changed = true
                continue
            }
            if dropping, type.elementsEqual("VP8X".utf8), let flags = body.first, flags & 0x0C != 0 {
                // The flags say which chunks follow: EXIF (0x08) and XMP (0x04) no longer do.
                body[0] = flags & ~0x0C
                changed = true
            }
            if type.elementsEqual("EXIF".utf8), body.starts(with: prefix) {
                body.removeFirst(prefix.count)
                changed = true
            }
            output += type + littleEndianBytes(UInt32(body.count)) + body
            if body.count % 2 == 1 { output.append(0) }
        }
        guard changed else { return nil }
        output.replaceSubrange(4..<8, with: littleEndianBytes(UInt32(output.count - 8)))
        return Data(output)
    }

    /// The PNG without the `eXIf` chunks after its first; nil when it has at most one.
    static func png(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        guard bytes.count >= 8, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        var output = Array(bytes[0..<8])
        var offset = 8
        var seen = false
        var changed = false
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let end = offset + 12 + length
            guard end <= bytes.count else { return nil }
            let isExif = bytes[offset + 4..<offset + 8].elementsEqual("eXIf".utf8)
            if isExif, seen {
                changed = true
            } else {
                output += bytes[offset..<end]
            }
            seen = seen || isExif
            offset = end
        }
        return changed ? Data(output + bytes[offset...]) : nil
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func littleEndianBytes(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
