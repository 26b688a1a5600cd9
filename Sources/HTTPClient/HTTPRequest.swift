import Crypto
import Foundation

/// One HTTP request: method, URL, headers, a body in memory or streamed from a file, and limits.
public struct HTTPRequest: Sendable {
    /// The request body.
    public enum Body: Sendable {
        /// No body.
        case none
        /// Bytes in memory (small bodies: forms, JSON).
        case data(Data)
        /// `length` bytes of the file at `path` starting at `offset`, read as they are sent.
        case file(path: String, offset: Int64, length: Int64)

        /// The number of bytes the body holds.
        public var length: Int64 {
            switch self {
            case .none: 0
            case .data(let data): Int64(data.count)
            case .file(_, _, let length): length
            }
        }
    }

    /// The method, such as `PATCH`.
    public var method: String
    /// The absolute URL.
    public var url: String
    /// Header fields in the order they are sent.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Body
    /// Connection, stall and total time limits.
    public var timeouts: HTTPTimeouts
    /// Whether redirects are followed (off unless asked).
    public var followsRedirects: Bool
    /// The largest response body accepted; a larger one fails the request.
    public var maxResponseBytes: Int
    /// Where the response body is written instead of memory (created or truncated, mode 0600).
    public var responseFile: String?
    /// An open file the response body is written to instead of memory (through a duplicate of the
    /// descriptor: the caller keeps and closes its own), for callers that opened it themselves.
    public var responseDescriptor: Int32?
    /// Which addresses the request may connect to; `nil` allows any. With a policy, proxies are
    /// not used, so the address checked is the server's own.
    public var addressPolicy: AddressPolicy?
    /// When set, the body is sent in chunked encoding and a digest of it follows as a trailer
    /// field, computed from the bytes as they are read for sending: the body is read once, with
    /// no pass of its own for the digest.
    public var digestTrailer: DigestTrailer?
    /// When set, libcurl signs the request with AWS Signature V4 (S3-compatible services).
    public var awsSigning: AWSSigning?

    /// A trailer field whose value is a digest of the body (tus `checksum-trailer` sends one).
    public struct DigestTrailer: Sendable {
        /// The field's name, announced in the `Trailer` header.
        public var field: String
        /// The digest taken of the body.
        public var algorithm: DigestAlgorithm
        /// The field's value for the digest.
        public var value: @Sendable ([UInt8]) -> String

        /// Creates a trailer description.
        public init(field: String, algorithm: DigestAlgorithm, value: @escaping @Sendable ([UInt8]) -> String) {
            self.field = field
            self.algorithm = algorithm
            self.value = value
        }
    }

    /// Creates a request.
    public init(
        method: String, url: String, headers: [(name: String, value: String)] = [], body: Body = .none,
        timeouts: HTTPTimeouts = HTTPTimeouts(), followsRedirects: Bool = false, maxResponseBytes: Int = 16 << 20,
        responseFile: String? = nil, addressPolicy: AddressPolicy? = nil, digestTrailer: DigestTrailer? = nil, awsSigning: AWSSigning? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeouts = timeouts
        self.followsRedirects = followsRedirects
        self.maxResponseBytes = maxResponseBytes
        self.responseFile = responseFile
        self.addressPolicy = addressPolicy
        self.digestTrailer = digestTrailer
        self.awsSigning = awsSigning
    }

    /// `PATCH http://host/files/abc`, for messages: never the headers, which may carry tokens, nor the
    /// query, which may carry signed params and their signature.
    public var summary: String {
        guard let query = url.firstIndex(of: "?") else { return "\(method) \(url)" }
        return "\(method) \(url[..<query])?…"
    }
}

/// Time limits for one request. A transfer slower than `stallBytesPerSecond` for `stallTime`
/// is aborted, so a dead peer cannot hang an upload forever.
public struct HTTPTimeouts: Sendable {
    /// The longest wait for a connection.
    public var connect: Duration
    /// How long a transfer may stay below `stallBytesPerSecond`.
    public var stallTime: Duration
    /// The slowest rate that still counts as progress.
    public var stallBytesPerSecond: Int
    /// The longest a whole request may take; `nil` for no limit (large uploads).
    public var total: Duration?

    /// Creates time limits.
    public init(connect: Duration = .seconds(10), stallTime: Duration = .seconds(30), stallBytesPerSecond: Int = 1, total: Duration? = nil) {
        self.connect = connect
        self.stallTime = stallTime
        self.stallBytesPerSecond = stallBytesPerSecond
        self.total = total
    }
}
