import Foundation

/// libvips writes a WebP's EXIF chunk with the `Exif\0\0` prefix of a JPEG's APP1 segment, which
/// the WebP container does not have: readers take such a chunk as damaged ("Improper EXIF
/// header"). This rewrites the chunk as the format says: the TIFF header first.
enum WebPExifChunk {
    /// Drops the prefix from the EXIF chunk of the WebP at `path`, in place; a file without one,
    /// or that is no WebP, is left as it is.
    static func repair(_ path: String) throws(RobotError) {
        guard let data = FileManager.default.contents(atPath: path), let repaired = repaired(data) else { return }
        do {
            try repaired.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw RobotError(code: "IMAGE_RESIZE_ERROR", message: "cannot write the WebP's metadata: \(error.localizedDescription)")
        }
    }

    /// The file with its EXIF chunk's prefix dropped; nil when there is nothing to change.
    static func repaired(_ data: Data) -> Data? {
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
            var type = Array(bytes[offset..<offset + 4])
            var body = Array(bytes[offset + 8..<end])
            if type.elementsEqual("EXIF".utf8), body.starts(with: prefix) {
                body.removeFirst(prefix.count)
                changed = true
            }
            type += littleEndianBytes(UInt32(body.count))
            output += type + body
            if body.count % 2 == 1 { output.append(0) }
            offset = end + size % 2
        }
        guard changed else { return nil }
        output.replaceSubrange(4..<8, with: littleEndianBytes(UInt32(output.count - 8)))
        return Data(output)
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func littleEndianBytes(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
