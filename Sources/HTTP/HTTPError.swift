/// A request that got no usable response: the connection failed, stalled or was cut.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// libcurl reported a transport error (code and message).
        case transport(code: Int, message: String)
        /// The response body was larger than the request allowed.
        case responseTooLarge(limit: Int)
        /// The file to send could not be read.
        case unreadableFile(path: String, code: Int32)
        /// The request was cancelled.
        case cancelled
    }

    /// What went wrong.
    public var kind: Kind
    /// `METHOD URL` of the request.
    public var request: String

    /// Creates an error.
    public init(_ kind: Kind, request: String) {
        self.kind = kind
        self.request = request
    }

    /// "PATCH http://...: Connection refused".
    public var description: String {
        switch kind {
        case .transport(_, let message): "\(request): \(message)"
        case .responseTooLarge(let limit): "\(request): the response is larger than \(limit) bytes"
        case .unreadableFile(let path, let code): "\(request): cannot read '\(path)' (errno \(code))"
        case .cancelled: "\(request): cancelled"
        }
    }

    /// Whether trying again may help (transport failures, not bad files or cancellation).
    public var isTransient: Bool {
        if case .transport = kind { return true }
        return false
    }
}
