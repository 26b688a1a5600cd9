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
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
