import Basics
import Foundation
import HTTPClient

/// Fetches http(s) URLs to files for the engine's robots, on the robot's own thread: only public
/// addresses (and loopback when the engine allows it), redirects within http(s), a size limit,
/// and the transfer dropped as soon as the Assembly is canceled.
struct RemoteFetcher: Sendable {
    let client = HTTPClient()
    let policy: AddressPolicy
    let maxBytes: Int64
    /// Whether `maxBytes` is the engine's limit rather than the step's `max_file_size`.
    let isEngineLimit: Bool
    let headers: [(name: String, value: String)]

    init(limits: RobotLimits, maxBytes: Int64? = nil, headers: [(name: String, value: String)] = []) {
        policy = AddressPolicy(allowsLoopback: limits.importsFromLoopback)
        self.maxBytes = min(maxBytes ?? limits.importBytes, limits.importBytes)
        isEngineLimit = self.maxBytes == limits.importBytes && (maxBytes ?? .max) > limits.importBytes
        self.headers = headers
    }

    /// Writes the body at `url` to `path`; the response's headers on success.
    func fetch(_ url: String, to path: String, isCanceled: @escaping @Sendable () -> Bool) throws(RobotError) -> HTTPResponse {
        let request = HTTPRequest(
            method: "GET", url: url, headers: headers + [("Accept-Encoding", "identity")],
            timeouts: HTTPTimeouts(connect: .seconds(15), stallTime: .seconds(30), stallBytesPerSecond: 1024, total: .seconds(3600)),
            followsRedirects: true, maxResponseBytes: Int(clamping: maxBytes), responseFile: path, addressPolicy: policy)
        let client = client
        let outcome = BlockingWait.result(isCanceled: isCanceled) { try await client.send(request) }
        let shown = Self.shown(url)
        switch outcome {
        case .success(let response) where (200..<300).contains(response.status):
            return response
        case .success(let response):
            throw RobotError(code: .importFileError, message: "\(shown) answered \(response.status)")
        case .failure(let error as HTTPError) where error.kind == .cancelled:
            throw RobotError.canceled
        case .failure(let error as HTTPError):
            throw RobotError(code: .importFileError, message: "cannot fetch \(shown): \(error.message)" + hint(for: error.kind))
        case .failure(is CancellationError):
            throw RobotError.canceled
        case .failure(let error):
            throw RobotError(code: .importFileError, message: "cannot fetch \(shown): \(error)")
        }
    }

    /// A URL for messages and `meta`: without user name and password, and without its query,
    /// which often carries a signature.
    static func shown(_ url: String, keepQuery: Bool = false) -> String {
        guard var parts = URLComponents(string: url) else { return "the URL" }
        parts.user = nil
        parts.password = nil
        let hidesQuery = !keepQuery && parts.query != nil
        if hidesQuery { parts.query = nil }
        return (parts.string ?? "the URL") + (hidesQuery ? "?…" : "")
    }

    private func hint(for kind: HTTPError.Kind) -> String {
        switch kind {
        case .responseTooLarge where isEngineLimit: "; the engine imports at most that much a file (pipeline serve --max-import-size)"
        case .responseTooLarge: "; raise the step's max_file_size to import it"
        case .addressRefused(let reason) where reason.contains("loopback"):
            "; to import from this machine, start the engine with --allow-loopback-import"
        case .addressRefused: "; the engine imports from public addresses only"
        default: ""
        }
    }
}
