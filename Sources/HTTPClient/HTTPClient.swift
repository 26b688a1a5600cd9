import Foundation

/// Sends HTTP requests over libcurl. All requests of one client share a connection pool and run
/// concurrently on one network thread; callers simply `await` their response.
public final class HTTPClient: Sendable {
    private let loop: CurlLoop?
    private let trust: TrustBundle

    /// Creates a client with its own network thread, checking HTTPS servers against `trust`
    /// (by default the system's CAs and those the process's environment names). A command makes
    /// one and passes it down, so all its requests share one thread and one connection pool.
    public init(trust: TLSTrust = .fromEnvironment(ProcessInfo.processInfo.environment)) {
        loop = CurlLoop()
        self.trust = TrustBundle(trust)
    }

    deinit {
        loop?.stop()
    }

    /// Sends `request`; `progress` receives the number of body bytes sent so far.
    /// Any HTTP status is a response; only transport failures throw (as `HTTPError`).
    /// With `followsRedirects`, at most five redirects of a GET or HEAD are followed, and the
    /// request's own headers (except `Accept*` and `User-Agent`) only go to the origin it named.
    public func send(_ request: HTTPRequest, progress: (@Sendable (Int64) -> Void)? = nil) async throws -> HTTPResponse {
        var current = request
        for _ in 0...Redirect.limit {
            let response = try await sendOnce(current, progress: progress)
            guard request.followsRedirects, let next = try Redirect.next(after: response, to: current, original: request) else { return response }
            current = next
        }
        throw HTTPError(.transport(code: 47, message: "more than \(Redirect.limit) redirects"), request: request.summary)
    }

    private func sendOnce(_ request: HTTPRequest, progress: (@Sendable (Int64) -> Void)?) async throws -> HTTPResponse {
        guard let loop, let transfer = Transfer(request: request, progress: progress) else {
            throw HTTPError(.transport(code: -1, message: "libcurl could not be initialized"), request: request.summary)
        }
        try transfer.configure(trust: trust)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.continuation = continuation
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }
}
