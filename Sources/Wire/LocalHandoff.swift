/// The same-machine handoff: a local engine offers a Unix socket in its tus `OPTIONS` answer, and
/// a client on the same machine sends it each file as an open descriptor instead of its bytes.
/// An upload is created with its bytes (`Create`), or continued (`Append`) after one begun over HTTP. Messages
/// are lines of text on a `SOCK_SEQPACKET` socket (see docs/engine.md, "Uploads from this machine").
public enum LocalHandoff {
    /// The `OPTIONS` header that offers it: `<absolute socket path>; token=<hex>`.
    public static let header = "Pipeline-Handoff"
    /// The engine's first message on a connection, before the token.
    public static let greetingPrefix = "pipeline-handoff/1 "

    /// Where the engine listens, and the token its socket greets with (so a client talks only to
    /// the engine whose `OPTIONS` it read, never to another program at that path).
    public struct Offer: Sendable, Equatable {
        /// The socket's absolute path.
        public var path: String
        /// Random hex, made at the engine's start.
        public var token: String

        /// Creates an offer.
        public init(path: String, token: String) {
            self.path = path
            self.token = token
        }

        /// Reads the header's value; `nil` unless it names an absolute path and a hex token.
        public init?(header value: String?) {
            guard let value, let split = value.range(of: "; token=", options: .backwards) else { return nil }
            let path = String(value[..<split.lowerBound]), token = String(value[split.upperBound...])
            guard path.hasPrefix("/"), !token.isEmpty, token.utf8.count <= 128, token.allSatisfy(\.isHexDigit) else { return nil }
            self.init(path: path, token: token)
        }

        /// The header's value.
        public var header: String { "\(path); token=\(token)" }

        /// The engine's first message on each connection.
        public var greeting: String { LocalHandoff.greetingPrefix + token }
    }

    /// "Append `length` bytes of the descriptor that comes along, from `offset`, to upload `id`
    /// at its offset `offset`": the file's offset and the upload's are the same.
    public struct Append: Sendable, Equatable {
        /// The upload's id (the last part of its URL).
        public var id: String
        /// Where the bytes start, in the file and in the upload.
        public var offset: Int64
        /// How many bytes.
        public var length: Int64

        /// Creates a request.
        public init(id: String, offset: Int64, length: Int64) {
            self.id = id
            self.offset = offset
            self.length = length
        }

        /// Reads `append <id> <offset> <length>`.
        public init?(message: String) {
            let parts = message.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 4, parts[0] == "append", let offset = TusProtocol.parseCount(String(parts[2])),
                  let length = TusProtocol.parseCount(String(parts[3])) else { return nil }
            self.init(id: String(parts[1]), offset: offset, length: length)
        }

        /// The message.
        public var message: String { "append \(id) \(offset) \(length)" }
    }

    /// "Create an upload of `length` bytes with `metadata`, all of them from the descriptor that
    /// comes along": a creation-with-upload of the whole file.
    public struct Create: Sendable, Equatable {
        /// The upload's length, and the bytes the file gives from its start.
        public var length: Int64
        /// `Upload-Metadata` pairs.
        public var metadata: [String: String]

        /// Creates a request.
        public init(length: Int64, metadata: [String: String]) {
            self.length = length
            self.metadata = metadata
        }

        /// Reads `create <length> <Upload-Metadata value>` (the value may be empty); `nil` when
        /// malformed, the metadata included.
        public init?(message: String) {
            let parts = message.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "create", let length = TusProtocol.parseCount(String(parts[1])),
                  let metadata = TusProtocol.parseMetadata(parts[2].isEmpty ? nil : String(parts[2])) else { return nil }
            self.init(length: length, metadata: metadata)
        }

        /// The message.
        public var message: String { "create \(length) \(TusProtocol.encodeMetadata(metadata))" }
    }

    /// The engine's answer to an `Append` or a `Create`.
    public enum Reply: Sendable, Equatable {
        /// The bytes are stored: the upload's offset now.
        case stored(offset: Int64)
        /// The upload is made, at `location` (its URL's path, as a `Location` header gives it),
        /// holding `offset` bytes.
        case created(location: String, offset: Int64)
        /// Refused, with the HTTP status a PATCH would have had and why.
        case refused(status: Int, message: String)

        /// Reads `ok <offset>` or `error <status> <message>`.
        public init?(message: String) {
            let parts = message.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == "ok", let offset = TusProtocol.parseCount(String(parts[1])) {
                self = .stored(offset: offset)
            } else if parts.count == 3, parts[0] == "created", parts[1].hasPrefix("/"), let offset = TusProtocol.parseCount(String(parts[2])) {
                self = .created(location: String(parts[1]), offset: offset)
            } else if parts.count == 3, parts[0] == "error", let status = Int(parts[1]), (400..<600).contains(status) {
                self = .refused(status: status, message: String(parts[2]))
            } else {
                return nil
            }
        }

        /// The message.
        public var message: String {
            switch self {
            case .stored(let offset): "ok \(offset)"
            case .created(let location, let offset): "created \(location) \(offset)"
            case .refused(let status, let message): "error \(status) \(message)"
            }
        }
    }
}
