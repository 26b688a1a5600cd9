import Foundation

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
        /// The response body could not be written to its file.
        case unwritableFile(path: String, code: Int32)
        /// Every address the server's name led to was refused by the request's `AddressPolicy`.
        case addressRefused(reason: String)
        /// The request carries credentials to a URL that is not https (or http to the loopback host).
        case insecureCredentials
        /// The request was cancelled.
        case cancelled
        /// libcurl refused an option of the request (this libcurl lacks a feature it needs).
        case setup(option: String, message: String)
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
    public var description: String { "\(request): \(message)" }

    /// What went wrong, without the request: "Connection refused".
    public var message: String {
        switch kind {
        case .transport(_, let message): message
        case .responseTooLarge(let limit): "the response is larger than \(limit) bytes"
        case .unreadableFile(let path, let code): "cannot read '\(path)': \(String(cString: strerror(code)))"
        case .unwritableFile(let path, let code): "cannot write '\(path)': \(String(cString: strerror(code)))"
        case .addressRefused(let reason): "refused to connect: \(reason)"
        case .insecureCredentials: "not sent: it carries a bearer token, which goes only over https (or http to 127.0.0.1, localhost or [::1])"
        case .cancelled: "cancelled"
        case .setup(let option, let message): "not sent: libcurl refused \(option) (\(message))"
        }
    }

    /// Whether trying again may help: transport failures, but not an untrusted certificate, a
    /// malformed URL, an unreadable file or cancellation.
    public var isTransient: Bool {
        guard case .transport(let code, _) = kind else { return false }
        return !Self.permanentCodes.contains(code)
    }

    /// libcurl codes that the same request always gets again: unsupported protocol (1), bad URL
    /// (3), client certificate problem (58), untrusted peer certificate (60), unreadable CA file (77).
    static let permanentCodes: Set<Int> = [1, 3, 58, 60, 77]
}
