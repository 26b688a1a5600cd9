import Foundation
import Wire

/// What is known of a request before its body arrives.
public struct RequestHead: Sendable {
    /// The method, such as `PATCH`.
    public var method: String
    /// The path without the query, such as `/assemblies/abc`.
    public var path: String
    /// Query arguments.
    public var query: [String: String]
    /// Request headers, looked up case-insensitively.
    public var headers: HTTPHeaders
    /// `http://host:port` as the client addressed the server (from `Host`).
    public var origin: String
    /// Whether the request came straight from its client, as far as the server can tell: HTTP/1.1
    /// or later, no forwarding headers, no public URL configured. A proxy in between may buffer a
    /// chunked body and drop its trailer fields.
    public var isDirect = true
    /// Whether the client has closed or shut down its end of the connection, asked without
    /// waiting: a request held for a while stops when nobody waits for its answer.
    public var clientGone: @Sendable () -> Bool = { false }
    /// Runs an action once the request has ended: its answer written to the connection whole,
    /// or the connection gone (at once for a head no server made). An answer returned by the
    /// handler is not yet sent: the server's stop cuts every connection, so a stop that must
    /// let answers out waits for this.
    public var whenEnded: @Sendable (_ action: @escaping @Sendable () -> Void) -> Void = { $0() }
}

/// A response to send.
public struct ServerResponse: Sendable {
    /// The body of a response.
    public enum Body: Sendable {
        case empty
        case data(Data)
        /// `length` bytes of a file from `offset`, sent without reading the file into memory.
        case file(path: String, offset: Int64, length: Int64)
    }

    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Body

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> ServerResponse {
        ServerResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + headers, body: .data(Data(text.utf8)))
    }

    /// A plain-text response.
    public static func text(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> ServerResponse {
        ServerResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers, body: .data(Data((text + "\n").utf8)))
    }
}

/// Receives a request body as it arrives, without holding it in memory.
public protocol BodySink: AnyObject, Sendable {
    /// Takes the next bytes; throwing stops the request with `error`'s response.
    func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError)
    /// The body ended (`complete`, with the trailer fields of a chunked body) or the connection
    /// was lost before its end (no trailers).
    func close(complete: Bool, trailers: HTTPHeaders)
    /// Receives the means to end the request from elsewhere (another request that needs what this
    /// one holds), before the first bytes arrive.
    func attach(_ ender: RequestEnder)
}

extension BodySink {
    /// Sinks that nothing else waits for need no ender.
    public func attach(_ ender: RequestEnder) {}
}

/// Ends one request from another thread: its connection is shut down, so its body ends as if
/// the client had gone (what arrived is kept), and the connection's thread moves on at once.
public final class RequestEnder: Sendable {
    private let end: @Sendable () -> Void

    init(_ end: @escaping @Sendable () -> Void) {
        self.end = end
    }

    /// Shuts the request's connection down; nothing when it has already closed.
    public func callAsFunction() { end() }
}

/// A body that cannot be taken, with the response that says why.
public struct SinkError: Error, Sendable {
    /// The response sent instead.
    public var response: ServerResponse

    /// Creates a sink error.
    public init(_ response: ServerResponse) {
        self.response = response
    }
}

/// A parsed form (multipart or urlencoded): fields in memory, file parts on disk.
public struct FormData: Sendable {
    /// One uploaded file part.
    public struct FilePart: Sendable {
        /// The form field name.
        public var field: String
        /// The file name the client gave (never used as a path).
        public var filename: String
        /// The content type the client gave.
        public var contentType: String?
        /// Where the bytes were stored.
        public var path: String
        /// The number of bytes.
        public var size: Int64

        /// A part stored at `path`.
        public init(field: String, filename: String, contentType: String?, path: String, size: Int64) {
            (self.field, self.filename, self.contentType, self.path, self.size) = (field, filename, contentType, path, size)
        }
    }

    /// Fields in the order received (a repeated name keeps its last value in `field(_:)`).
    public var fields: [(name: String, value: String)] = []
    /// File parts in the order received.
    public var files: [FilePart] = []

    /// A form of these fields and files.
    public init(fields: [(name: String, value: String)] = [], files: [FilePart] = []) {
        (self.fields, self.files) = (fields, files)
    }

    /// The last value of field `name`.
    public func field(_ name: String) -> String? { fields.last { $0.name == name }?.value }
}

/// How the server should treat a request once its head is known.
public enum RequestPlan: Sendable {
    /// Answer at once; any body is not read.
    case respond(ServerResponse)
    /// Read the body into memory (at most `limit` bytes, else 413), then answer.
    case collect(limit: Int, then: @Sendable (Data) -> ServerResponse)
    /// Stream the body into `sink`, then answer.
    case stream(into: any BodySink, then: @Sendable () -> ServerResponse)
    /// Parse a form body; file parts go to files under `directory` (at most `limit` bytes in all).
    /// `admit` sees the fields before the first file part is stored (or at the end when there is
    /// none) and may refuse the request; files left in `directory` after `then` are removed.
    case form(directory: String, limit: Int64, admit: @Sendable (FormData) -> ServerResponse?, then: @Sendable (FormData) -> ServerResponse)
}

/// Decides what to do with each request.
public protocol HTTPServerHandler: Sendable {
    /// Called once per request when its head has arrived, on the connection's own thread.
    func plan(_ head: RequestHead) -> RequestPlan
}
