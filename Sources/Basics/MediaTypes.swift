/// Media types by file extension: the one table the runner, the uploader and the engine share.
public enum MediaTypes {
    static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "avif": "image/avif", "svg": "image/svg+xml", "tif": "image/tiff", "tiff": "image/tiff", "heic": "image/heic",
        "mp4": "video/mp4", "mov": "video/quicktime", "webm": "video/webm", "mkv": "video/x-matroska",
        "avi": "video/x-msvideo", "m4v": "video/mp4", "ts": "video/mp2t",
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "flac": "audio/flac", "m4a": "audio/mp4", "aac": "audio/aac",
        "opus": "audio/opus",
        "pdf": "application/pdf", "zip": "application/zip", "tar": "application/x-tar", "gz": "application/gzip", "tgz": "application/gzip", "json": "application/json", "txt": "text/plain",
        "csv": "text/csv", "html": "text/html", "css": "text/css", "js": "text/javascript",
        "srt": "application/x-subrip", "vtt": "text/vtt",
    ]

    /// The tus `Upload-Metadata` most servers expect for a file: `filename` (its last path part,
    /// control characters such as a newline replaced by `_`, which servers may refuse in metadata)
    /// and `filetype`.
    public static func uploadMetadata(for path: String) -> [String: String] {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let printable = String(String.UnicodeScalarView(name.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "_" : $0 }))
        return ["filename": printable, "filetype": guess(path)]
    }

    /// The media type for a file name or path, `application/octet-stream` when unknown.
    public static func guess(_ path: String) -> String {
        extensionKey(path).flatMap { byKey[$0] } ?? "application/octet-stream"
    }

    /// Whether the path's media type is audio or video.
    public static func isAudioOrVideo(_ path: String) -> Bool {
        extensionKey(path).map(audioAndVideo.contains) ?? false
    }

    /// A dozen keys: looked through faster than hashed.
    private static let audioAndVideo = byKey.compactMap { key, type in type.hasPrefix("audio/") || type.hasPrefix("video/") ? key : nil }

    /// The table by `extensionKey`.
    private static let byKey = Dictionary(uniqueKeysWithValues: byExtension.compactMap { name, type in extensionKey("x." + name).map { ($0, type) } })

    /// The extension of a path's last part, ASCII-lowercased and packed into a number, read from
    /// the path's end without making strings (a plan asks this of every file); nil for none, a
    /// name that begins with its only dot, or one longer than 7 bytes (longer than any known).
    static func extensionKey(_ path: String) -> UInt64? {
        var key: UInt64 = 0
        var length = 0
        var bytes = path.utf8.reversed().makeIterator()
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "/"):
                return nil
            case UInt8(ascii: "."):
                guard let before = bytes.next(), before != UInt8(ascii: "/") else { return nil }
                return key | UInt64(length) << 60
            default:
                guard length < 7 else { return nil }
                key = key << 8 | UInt64(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
                length += 1
            }
        }
        return nil
    }
}
