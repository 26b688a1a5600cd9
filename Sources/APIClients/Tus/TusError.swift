import HTTPClient

/// Why a tus request failed, classified by what the uploader should do next.
public struct TusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The classes of failure the protocol distinguishes.
    public enum Kind: Sendable, Equatable {
        /// The connection failed, stalled or was cut: HEAD and continue.
        case transport
        /// 409: the offsets disagree: HEAD and continue from the server's offset.
        case offsetConflict
        /// 423: the upload is locked by another request: wait and retry.
        case locked
        /// 460: the checksum did not match: send the same chunk again.
        case checksumMismatch
        /// 404, 410 (or 403 on HEAD): the upload is gone: create a new one.
        case gone
        /// 5xx: the server failed: retry with backoff.
        case serverError
        /// 429: the server (or the load balancer before it) limits requests: wait its
        /// `Retry-After`, else a backoff from 1 s, holding the run's other requests too.
        case rateLimited
        /// Any other 4xx, or a response that breaks the protocol: stop.
        case rejected
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// `METHOD URL` of the request.
    public var request: String
    /// The HTTP status, if there was a response.
    public var status: Int?
    /// What the server or the transport said.
    public var detail: String
    /// The upload a refused creating request made anyway (its `Location`), to go on with
    /// instead of creating another.
    public var location: String?
    /// The seconds a refusal's `Retry-After` asked to wait.
    public var retryAfter: Double?

    /// Creates an error.
    public init(_ kind: Kind, request: String, status: Int? = nil, detail: String) {
        self.kind = kind
        self.request = request
        self.status = status
        self.detail = detail
    }

    /// Whether a retry (after HEAD) can help.
    public var isRetryable: Bool {
        [.transport, .offsetConflict, .locked, .checksumMismatch, .serverError, .rateLimited].contains(kind)
    }

    /// The same error with `hint` appended to its detail.
    func withDetail(_ hint: String) -> TusError {
        var copy = self
        copy.detail = detail.isEmpty ? hint : detail + " (" + hint + ")"
        return copy
    }

    /// "PATCH http://…: HTTP 413: upload too large".
    public var description: String {
        let code = status.map { "HTTP \($0)" }
        return [request, code, detail.isEmpty ? nil : detail].compactMap { $0 }.joined(separator: ": ")
    }

    /// Classifies a response status (not 2xx) for `request`.
    static func from(_ response: HTTPResponse, request: HTTPRequest, isHead: Bool = false) -> TusError {
        var error = TusError(kind(status: response.status, method: request.method, isHead: isHead), request: request.summary,
                             status: response.status, detail: response.bodyText(limit: 200))
        error.retryAfter = response.retryAfter.map { min($0, 3600) }
        return error
    }

    /// What a refusal with `status` means for a `method` request.
    static func kind(status: Int, method: String, isHead: Bool = false) -> Kind {
        switch status {
        case 409 where method == "POST": .rejected
        case 409: .offsetConflict
        case 423: .locked
        case 429: .rateLimited
        case 460: .checksumMismatch
        case 404, 410: .gone
        case 403 where isHead: .gone
        case 500...599: .serverError
        default: .rejected
        }
    }

    /// Wraps a transport failure.
    static func from(_ error: HTTPError) -> TusError {
        TusError(error.isTransient ? .transport : .rejected, request: error.request, detail: error.message)
    }
}
