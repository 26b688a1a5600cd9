import Foundation

/// What image a file holds, by its first bytes: its name may say otherwise.
enum ImageSniffing {
    /// The usual extension of the file's image kind (`jpg`, `png`, `gif`, `tif`, `webp`, `avif`,
    /// `heic`), or nil when it is none of them.
    static func fileExtension(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 16)) ?? Data())
        func at(_ offset: Int, _ text: String) -> Bool {
            head.count >= offset + text.utf8.count && Array(head[offset..<offset + text.utf8.count]) == Array(text.utf8)
        }
        switch true {
        case head.starts(with: [0xFF, 0xD8, 0xFF]): return "jpg"
        case head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]): return "png"
        case at(0, "GIF8"): return "gif"
        case head.starts(with: [0x49, 0x49, 0x2A, 0x00]), head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]): return "tif"
        case at(0, "RIFF") && at(8, "WEBP"): return "webp"
        case at(4, "ftypavif"): return "avif"
        case at(4, "ftypheic"), at(4, "ftypheix"), at(4, "ftypmif1"): return "heic"
        default: return nil
        }
    }
}
