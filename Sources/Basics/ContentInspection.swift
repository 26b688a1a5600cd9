/// What a file's bytes show, learned while they stream past once (as `plan` hashes them): the
/// media type its content has, whatever its name says, and whether it is empty or cut short.
/// It fits one byte, so the digest cache keeps it beside the digest.
public struct ContentInspection: Sendable, Hashable {
    /// Why a file cannot be processed as it is.
    public enum Problem: UInt8, Sendable {
        /// It has no bytes.
        case empty = 1
        /// Its format's end is missing: a JPEG without its end marker, a PNG without `IEND`, a GIF
        /// without its trailer, a WebP shorter than its header says.
        case truncated = 2
    }

    /// The inspection as one byte: the problem in the top two bits, the type below (an index into
    /// `knownTypes`, plus one). Held as nothing else, so that planned files stay plain values.
    public let byte: UInt8

    /// The inspection a byte holds.
    public init(byte: UInt8) {
        self.byte = byte
    }

    /// An inspection; a media type not in `knownTypes` is kept as unknown.
    public init(mediaType: String?, problem: Problem?) {
        let type = mediaType.flatMap { Self.knownTypes.firstIndex(of: $0) }.map { UInt8($0 + 1) } ?? 0
        byte = (problem?.rawValue ?? 0) << 6 | type
    }

    /// The media types a byte can name (append only: the byte is an index into this list, plus one).
    static let knownTypes = [
        "image/jpeg", "image/png", "image/gif", "image/tiff", "image/webp", "image/avif", "image/heic", "application/pdf",
        "video/quicktime", "audio/mp4", "video/mp4", "video/webm", "video/x-matroska", "audio/ogg", "audio/flac", "audio/wav",
        "video/x-msvideo", "audio/mpeg", "application/zip", "application/gzip",
    ]

    /// Whether sniffing recognises content of `mediaType`, so that content it does not recognise is not of that type.
    public static func isSniffable(_ mediaType: String) -> Bool { knownTypes.contains(mediaType) }

    /// The sniffed media type; nil when the content shows none `ContentSniffing` knows.
    public var mediaType: String? {
        let type = Int(byte & 0x3F)
        return type > 0 && type <= Self.knownTypes.count ? Self.knownTypes[type - 1] : nil
    }

    /// What is wrong with it, if anything.
    public var problem: Problem? { Problem(rawValue: byte >> 6) }

    /// The media type's broad kind, `image`, `video`, `audio` or `document` (a PDF); nil otherwise.
    public var kind: String? {
        guard let mediaType else { return nil }
        if mediaType == "application/pdf" { return "document" }
        return ["image", "video", "audio"].first { mediaType.hasPrefix($0 + "/") }
    }
}

/// Watches a file's bytes go by, in order and in pieces of any size, and says what they were.
public struct ContentInspector: Sendable {
    private var head: [UInt8] = []
    private var size: Int64 = 0
    private var last: UInt8?
    private var mediaType: String?
    private var decided = false
    private var jpeg: JPEGEndWalker?
    private var png: PNGEndWalker?

    /// An inspector that has seen nothing.
    public init() {}

    /// Takes the next bytes of the file.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        var rest = bytes[...]
        if !decided {
            let wanted = ContentSniffing.headSize - head.count
            head += rest.prefix(wanted)
            rest = rest.dropFirst(wanted)
            if head.count == ContentSniffing.headSize { decide() }
        }
        if decided, !rest.isEmpty { walk(UnsafeRawBufferPointer(rebasing: rest)) }
        size += Int64(bytes.count)
        last = bytes.last
    }

    /// What the bytes fed were.
    public mutating func finish() -> ContentInspection {
        if !decided { decide() }
        guard size > 0 else { return ContentInspection(mediaType: nil, problem: .empty) }
        let whole: Bool
        switch mediaType {
        case "image/jpeg": whole = jpeg?.isComplete ?? true
        case "image/png": whole = png?.isComplete ?? true
        case "image/gif": whole = last == 0x3B
        case "image/webp": whole = head.count >= 8 && size >= Int64(Self.littleEndian(head[4..<8])) + 8
        default: whole = true
        }
        return ContentInspection(mediaType: mediaType, problem: whole ? nil : .truncated)
    }

    /// Sniffs the head and starts the walk its format needs over the head's own bytes.
    private mutating func decide() {
        decided = true
        mediaType = ContentSniffing.mediaType(head: head)
        if mediaType == "image/jpeg" { jpeg = JPEGEndWalker() }
        if mediaType == "image/png" { png = PNGEndWalker() }
        head.withUnsafeBytes { walk($0) }
    }

    private mutating func walk(_ bytes: UnsafeRawBufferPointer) {
        jpeg?.feed(bytes)
        png?.feed(bytes)
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
