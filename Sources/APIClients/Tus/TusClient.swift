import Foundation
import HTTPClient
import Wire

/// The tus requests, one function each, with responses checked against the protocol.
public struct TusClient: Sendable {
    /// The transport.
    public let http: HTTPClient
    /// The creation endpoint, such as `http://127.0.0.1:1080/files/`.
    public let endpoint: String
    /// Extra headers sent with every request.
    public var headers: [(name: String, value: String)]
    /// Limits for requests without a body.
    public var timeouts: HTTPTimeouts

    /// Creates a client for one endpoint.
    public init(http: HTTPClient, endpoint: String, headers: [(name: String, value: String)] = [], timeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.http = http
        self.endpoint = endpoint
        self.headers = headers
        self.timeouts = timeouts
    }

    /// What an upload looks like to the server.
    public struct Status: Sendable, Equatable {
        /// The bytes the server has.
        public var offset: Int64
        /// The total length, when the server knows it.
        public var length: Int64?
        /// When the server will forget the upload, if it said.
        public var expires: Date?
        /// The algorithm of the checksum the server says it verified for the body, if it said.
        public var verifiedChecksum: String?
    }

    /// OPTIONS: the server's extensions, checksum algorithms and size limit.
    public func capabilities() async throws(TusError) -> TusCapabilities {
        let request = HTTPRequest(method: "OPTIONS", url: endpoint, headers: headers, timeouts: timeouts)
        let response = try await send(request)
        guard (200..<300).contains(response.status) else { throw TusError.from(response, request: request) }
        return TusCapabilities(headers: response.headers)
    }

    /// POST: creates an upload of `length` bytes, optionally carrying the first bytes (with their
    /// `Upload-Checksum`, as a PATCH would); returns its URL and state.
    public func create(
        length: Int64, metadata: [String: String], body: HTTPRequest.Body = .none, checksum: String? = nil
    ) async throws(TusError) -> (url: String, status: Status) {
        var fields = tusHeaders + [("Upload-Length", String(length))]
        if !metadata.isEmpty { fields.append(("Upload-Metadata", TusProtocol.encodeMetadata(metadata))) }
        if body.length > 0 { fields.append(("Content-Type", TusProtocol.offsetContentType)) }
        if let checksum, body.length > 0 { fields.append((TusProtocol.checksumField, checksum)) }
        let request = HTTPRequest(method: "POST", url: endpoint, headers: fields, body: body, timeouts: bodyTimeouts)
        let response = try await send(request)
        // Any 2xx with a Location: lenient servers answer 200 or 204 to creation-with-upload.
        guard (200..<300).contains(response.status) else {
            var error = TusError.from(response, request: request)
            error.location = response.headers["Location"].flatMap { TusProtocol.resolve(location: $0, against: endpoint) }
            throw error
        }
        guard let location = response.headers["Location"], let url = TusProtocol.resolve(location: location, against: endpoint) else {
            throw TusError(.rejected, request: request.summary, status: response.status, detail: "the response has no usable Location header")
        }
        let offset = body.length > 0 ? response.headers["Upload-Offset"].flatMap(TusProtocol.parseCount).map { min($0, length) } ?? 0 : 0
        return (url, Status(offset: offset, length: length, expires: expires(response)))
    }

    /// HEAD: how many bytes the server has.
    public func status(of url: String) async throws(TusError) -> Status {
        let request = HTTPRequest(method: "HEAD", url: url, headers: tusHeaders, timeouts: timeouts)
        let response = try await send(request)
        guard (200..<300).contains(response.status) else { throw TusError.from(response, request: request, isHead: true) }
        guard let offset = response.headers["Upload-Offset"].flatMap(TusProtocol.parseCount) else {
            throw TusError(.rejected, request: request.summary, status: response.status, detail: "the response has no valid Upload-Offset")
        }
        return Status(offset: offset, length: response.headers["Upload-Length"].flatMap(TusProtocol.parseCount), expires: expires(response))
    }

    /// PATCH: sends `body` at `offset` with its `Upload-Checksum` in a header (`checksum`) or a
    /// trailer (`checksumTrailer`, for servers with `checksum-trailer`); returns the server's new offset.
    public func append(
        to url: String, offset: Int64, body: HTTPRequest.Body, checksum: String?, checksumTrailer: ChecksumAlgorithm? = nil,
        progress: (@Sendable (Int64) -> Void)? = nil
    ) async throws(TusError) -> Status {
        var fields = tusHeaders + [("Upload-Offset", String(offset)), ("Content-Type", TusProtocol.offsetContentType)]
        if let checksum { fields.append((TusProtocol.checksumField, checksum)) }
        let trailer = checksumTrailer.map(HTTPRequest.DigestTrailer.tusChecksum)
        let request = HTTPRequest(method: "PATCH", url: url, headers: fields, body: body, timeouts: bodyTimeouts, digestTrailer: trailer)
        let response = try await send(request, progress: progress)
        guard (200..<300).contains(response.status) else { throw TusError.from(response, request: request) }
        let offsets = response.headers.values("Upload-Offset")
        guard offsets.count == 1, let newOffset = TusProtocol.parseCount(offsets[0]),
              newOffset >= offset, newOffset <= offset + body.length else {
            throw TusError(.rejected, request: request.summary, status: response.status, detail: "the response has no valid Upload-Offset")
        }
        // A server that accepts a body and keeps none of it would be sent the same bytes forever.
        guard newOffset > offset || body.length == 0 else {
            throw TusError(.serverError, request: request.summary, status: response.status, detail: "the server kept none of the \(body.length) bytes sent")
        }
        return Status(offset: newOffset, length: nil, expires: expires(response), verifiedChecksum: response.headers[TusProtocol.checksumVerifiedField])
    }

    /// DELETE: asks the server to forget an upload (the termination extension).
    public func terminate(_ url: String) async throws(TusError) {
        let request = HTTPRequest(method: "DELETE", url: url, headers: tusHeaders, timeouts: timeouts)
        let response = try await send(request)
        guard (200..<300).contains(response.status) || response.status == 404 || response.status == 410 else {
            throw TusError.from(response, request: request)
        }
    }

    private var tusHeaders: [(name: String, value: String)] { headers + [("Tus-Resumable", TusProtocol.version)] }

    /// Body requests may run long; only a stall ends them.
    private var bodyTimeouts: HTTPTimeouts {
        var limits = timeouts
        limits.total = nil
        return limits
    }

    private func expires(_ response: HTTPResponse) -> Date? {
        response.headers["Upload-Expires"].flatMap(TusProtocol.parseHTTPDate)
    }

    private func send(_ request: HTTPRequest, progress: (@Sendable (Int64) -> Void)? = nil) async throws(TusError) -> HTTPResponse {
        do {
            return try await http.send(request, progress: progress)
        } catch let error as HTTPError {
            throw TusError.from(error)
        } catch {
            throw TusError(.transport, request: request.summary, detail: "\(error)")
        }
    }
}

extension HTTPRequest.DigestTrailer {
    /// The `Upload-Checksum` trailer of tus `checksum-trailer`, with `algorithm`'s checksum of the body.
    static func tusChecksum(_ algorithm: ChecksumAlgorithm) -> HTTPRequest.DigestTrailer {
        HTTPRequest.DigestTrailer(field: TusProtocol.checksumField, algorithm: algorithm.digest) { algorithm.headerValue(digest: $0) }
    }
}
