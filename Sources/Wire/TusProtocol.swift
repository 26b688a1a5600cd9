import Foundation

/// Facts of the tus 1.0.0 protocol: header names, metadata encoding, URL resolution.
public enum TusProtocol {
    /// The smallest PATCH body the uploader sends, and so the smallest `chunk_size` a manifest may ask for.
    public static let smallestChunk: Int64 = 256 << 10

    /// The protocol version sent in `Tus-Resumable`.
    public static let version = "1.0.0"
    /// The content type of PATCH bodies.
    public static let offsetContentType = "application/offset+octet-stream"
    /// The header (or trailer) field that carries a body's checksum.
    public static let checksumField = "Upload-Checksum"
    /// The algorithm of the checksum a server verified for a body (`pipeline serve`'s answer to a
    /// PATCH): a client that sent a trailer and sees none learns that a proxy dropped it.
    public static let checksumVerifiedField = "Upload-Checksum-Verified"

    /// `key base64(value)` pairs, sorted by key, joined by commas (the `Upload-Metadata` header).
    public static func encodeMetadata(_ metadata: [String: String]) -> String {
        metadata.sorted { $0.key < $1.key }.map { key, value in
            value.isEmpty ? key : "\(key) \(Data(value.utf8).base64EncodedString())"
        }.joined(separator: ",")
    }

    /// Parses an `Upload-Metadata` header; pairs that do not decode are skipped.
    public static func decodeMetadata(_ header: String) -> [String: String] {
        var metadata: [String: String] = [:]
        for pair in header.split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard let key = parts.first.map(String.init), !key.isEmpty else { continue }
            if parts.count == 1 {
                metadata[key] = ""
            } else if let data = Data(base64Encoded: String(parts[1])) {
                metadata[key] = String(decoding: data, as: UTF8.self)
            }
        }
        return metadata
    }

    /// A server's strict reading of `Upload-Metadata`: valid keys, base64 values without control
    /// characters (they would allow header injection when echoed back); `nil` when malformed.
    public static func parseMetadata(_ header: String?) -> [String: String]? {
        guard let header, !header.isEmpty else { return [:] }
        var metadata: [String: String] = [:]
        for pair in header.split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ")
            guard let key = parts.first.map(String.init), isValidMetadataKey(key), parts.count <= 2 else { return nil }
            guard parts.count == 2 else {
                metadata[key] = ""
                continue
            }
            guard let data = Data(base64Encoded: String(parts[1])) else { return nil }
            let value = String(decoding: data, as: UTF8.self)
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
            metadata[key] = value
        }
        return metadata
    }

    /// `Upload-Checksum: <algorithm> <base64 digest>`; `nil` for an unknown algorithm, bad base64
    /// or a digest of the wrong length for its algorithm.
    public static func parseChecksum(_ header: String) -> (ChecksumAlgorithm, Data)? {
        let parts = header.split(separator: " ")
        guard parts.count == 2, let algorithm = ChecksumAlgorithm(rawValue: String(parts[0])),
              let digest = Data(base64Encoded: String(parts[1])), digest.count == algorithm.digestLength else { return nil }
        return (algorithm, digest)
    }

    /// A byte count or offset header (`Upload-Offset`, `Upload-Length`): ASCII digits only, so
    /// `+0`, `-1`, ` 1` and `0x10` are refused; `nil` also when it does not fit in 63 bits.
    public static func parseCount(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text)
    }

    /// Whether a metadata key is valid: non-empty ASCII without spaces or commas.
    public static func isValidMetadataKey(_ key: String) -> Bool {
        !key.isEmpty && key.allSatisfy { $0.isASCII && $0 != " " && $0 != "," && !$0.isNewline }
    }

    /// A `Location` header resolved against the URL of the request it answered.
    public static func resolve(location: String, against base: String) -> String? {
        guard let baseURL = URL(string: base), let resolved = URL(string: location, relativeTo: baseURL) else { return nil }
        return resolved.absoluteString
    }

    /// Parses an HTTP date (`Upload-Expires`), e.g. `Mon, 30 Nov 2026 16:19:47 GMT`.
    public static func parseHTTPDate(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard fields.count == 6, fields[5] == "GMT", let day = Int(fields[1]), (1...31).contains(day),
              let month = months.firstIndex(of: String(fields[2])), let year = Int(fields[3]), (1970...9999).contains(year) else { return nil }
        // A server's header is input: numbers outside a clock's ranges are refused, never converted.
        let clock = fields[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(clock[0])
        parts.tm_min = Int32(clock[1])
        parts.tm_sec = Int32(clock[2])
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// Formats an HTTP date (`Upload-Expires`) in GMT, without locale or a formatter per call.
    public static func formatHTTPDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 40)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The comma-separated values of a header, trimmed and lowercased.
    public static func list(_ header: String?) -> [String] {
        (header ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }
}

/// What a tus server said about itself in answer to OPTIONS.
public struct TusCapabilities: Sendable, Equatable {
    /// Extensions such as `creation`, `checksum`, `termination`.
    public var extensions: Set<String>
    /// Checksum algorithms the server accepts, lowercased.
    public var checksumAlgorithms: [String]
    /// The largest upload the server takes, if it said.
    public var maxSize: Int64?
    /// The local engine's same-machine handoff, when it offers one.
    public var handoff: LocalHandoff.Offer?

    /// Creates capabilities.
    public init(extensions: Set<String> = [], checksumAlgorithms: [String] = [], maxSize: Int64? = nil, handoff: LocalHandoff.Offer? = nil) {
        self.extensions = extensions
        self.checksumAlgorithms = checksumAlgorithms
        self.maxSize = maxSize
        self.handoff = handoff
    }

    /// Reads capabilities from an OPTIONS response.
    public init(headers: HTTPHeaders) {
        extensions = Set(TusProtocol.list(headers["Tus-Extension"]))
        checksumAlgorithms = TusProtocol.list(headers["Tus-Checksum-Algorithm"])
        maxSize = headers["Tus-Max-Size"].flatMap { Int64($0) }
        handoff = LocalHandoff.Offer(header: headers[LocalHandoff.header])
    }

    /// Whether the server can take data in the creating POST.
    public var supportsCreationWithUpload: Bool { extensions.contains("creation-with-upload") }

    /// The best checksum algorithm both sides know, if the server does checksums.
    public var checksumAlgorithm: ChecksumAlgorithm? {
        guard extensions.contains("checksum") else { return nil }
        return ChecksumAlgorithm.preferred.first { checksumAlgorithms.contains($0.rawValue) }
    }
}
