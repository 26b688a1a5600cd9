import Foundation

/// What a file holds, by its first bytes: its name (or the type a client declared) may say
/// otherwise, and robots choose tools and `/file/filter` judges `mime` by it.
public enum ContentSniffing {
    /// The usual extension of the file's image kind (`jpg`, `png`, `gif`, `tif`, `webp`, `avif`,
    /// `heic`), or nil when it is none of them.
    public static func imageExtension(of path: String) -> String? {
        Head(path: path).imageExtension
    }

    /// The media type of `path`: the one its content shows when it is a common image, audio,
    /// video, PDF or archive format; `text/plain` for text that `claimed` says is media;
    /// otherwise `claimed`.
    public static func mediaType(of path: String, claimed: String) -> String {
        let head = Head(path: path)
        if let sniffed = head.mediaType { return sniffed }
        let media = ["image/", "video/", "audio/"].contains { claimed.hasPrefix($0) } && claimed != "image/svg+xml"
        return media && head.isText ? "text/plain" : claimed
    }

    /// The media type the first bytes of a file show (at least the first `headSize`, when it has
    /// that many), or nil when they show none this knows.
    public static func mediaType(head: [UInt8]) -> String? {
        Head(bytes: head.count <= headSize ? head : Array(head.prefix(headSize))).mediaType
    }

    /// The bytes looked at.
    public static let headSize = 512

    /// The first 512 bytes of a file.
    private struct Head {
        let bytes: [UInt8]

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// The first bytes of `path`; none when it cannot be read (hashing it then says why).
        init(path: String) {
            var head = [UInt8](repeating: 0, count: ContentSniffing.headSize)
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            var count = 0
            if descriptor >= 0 {
                count = head.withUnsafeMutableBytes { bytes in SystemCall.uninterrupted { read(descriptor, bytes.baseAddress, bytes.count) } }
                close(descriptor)
            }
            bytes = Array(head.prefix(max(0, count)))
        }

        /// Whether the bytes at `offset` are `expected` (compared in place: `plan` asks this of every file).
        func at(_ offset: Int, _ expected: UnsafeRawBufferPointer) -> Bool {
            guard bytes.count >= offset + expected.count, let wanted = expected.baseAddress else { return false }
            return bytes.withUnsafeBytes { have in have.baseAddress.map { memcmp($0 + offset, wanted, expected.count) == 0 } ?? false }
        }

        func at(_ offset: Int, _ text: StaticString) -> Bool {
            at(offset, UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        func at(_ offset: Int, _ signature: [UInt8]) -> Bool {
            signature.withUnsafeBytes { at(offset, $0) }
        }

        /// Signatures that are not text.
        static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
        static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        static let tiffLittle: [UInt8] = [0x49, 0x49, 0x2A, 0x00]
        static let tiffBig: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A]
        static let ebml: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3]
        static let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
        static let gzip: [UInt8] = [0x1F, 0x8B]

        var imageExtension: String? {
            switch true {
            case at(0, Self.jpeg): "jpg"
            case at(0, Self.png): "png"
            case at(0, "GIF8"): "gif"
            case at(0, Self.tiffLittle), at(0, Self.tiffBig): "tif"
            case at(0, "RIFF") && at(8, "WEBP"): "webp"
            case at(4, "ftypavif"): "avif"
            case at(4, "ftypheic"), at(4, "ftypheix"), at(4, "ftypmif1"): "heic"
            default: nil
            }
        }

        var mediaType: String? {
            if let image = imageExtension { return MediaTypes.guess("x." + image) }
            switch true {
            case at(0, "%PDF-"): return "application/pdf"
            case at(4, "ftypqt"): return "video/quicktime"
            case at(4, "ftypM4A"): return "audio/mp4"
            case at(4, "ftyp"): return "video/mp4"
            case at(0, Self.ebml):
                // The EBML header names its document type: WebM or Matroska.
                return Data(bytes.prefix(64)).range(of: Data("webm".utf8)) != nil ? "video/webm" : "video/x-matroska"
            case at(0, "OggS"): return "audio/ogg"
            case at(0, "fLaC"): return "audio/flac"
            case at(0, "RIFF") && at(8, "WAVE"): return "audio/wav"
            case at(0, "RIFF") && at(8, "AVI "): return "video/x-msvideo"
            case at(0, "ID3"), bytes.count > 1 && bytes[0] == 0xFF && [0xFB, 0xF3, 0xF2].contains(bytes[1]): return "audio/mpeg"
            case at(0, Self.zip): return "application/zip"
            case at(0, Self.gzip): return "application/gzip"
            default: return nil
            }
        }

        /// UTF-8 without NUL or control characters other than tab, line feed and carriage return.
        var isText: Bool {
            guard !bytes.isEmpty else { return false }
            // The last character may be cut at 512 bytes.
            let text = String(decoding: bytes, as: UTF8.self).unicodeScalars.dropLast()
            return !text.contains { $0 == "\u{FFFD}" || ($0.value < 0x20 && ![0x09, 0x0A, 0x0D].contains($0.value)) || $0.value == 0x7F }
        }
    }
}
