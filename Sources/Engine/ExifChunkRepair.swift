import Foundation

/// The EXIF libvips keeps (without `strip`) made valid for the container it writes:
/// - WebP: libvips writes the EXIF chunk with the `Exif\0\0` prefix of a JPEG's APP1 segment, which
///   the WebP container does not have; readers take such a chunk as damaged ("Improper EXIF header").
/// - PNG: libvips writes the `eXIf` chunk twice, before and after the image data; PNG allows one
///   (readers see an IFD that points back at itself).
enum ExifChunkRepair {
    /// Repairs the file at `path`, written as `format` (`webp`, `png`; others are left), in place.
    static func repair(_ path: String, format: String) throws(RobotError) {
        guard ["webp", "png"].contains(format), let data = FileManager.default.contents(atPath: path) else { return }
        guard let repaired = format == "webp" ? webp(data) : png(data) else { return }
        do {
            try repaired.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw RobotError(code: "IMAGE_RESIZE_ERROR", message: "cannot write the image's metadata: \(error.localizedDescription)")
        }
    }

    /// The WebP with its EXIF chunk's prefix dropped; nil when there is nothing to change.
    static func webp(_ data: Data) -> Data? {
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
            var body = Array(bytes[offset + 8..<end])
            if bytes[offset..<offset + 4].elementsEqual("EXIF".utf8), body.starts(with: prefix) {
                body.removeFirst(prefix.count)
                changed = true
            }
            output += bytes[offset..<offset + 4] + littleEndianBytes(UInt32(body.count)) + body
            if body.count % 2 == 1 { output.append(0) }
            offset = end + size % 2
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
