import Foundation
import HTTPClient
import Basics
import Wire

/// The Transloadit-compatible Assembly API: create (with a client-chosen id), status, cancel.
public struct AssemblyClient: Sendable {
    /// An API call that failed, with the code the API gave when it gave one.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The API's error code, or the runner's own (`HTTP_<status>`, `NETWORK`, ...).
        public var code: APIErrorCode
        /// What the API or the transport said.
        public var message: String
        /// Seconds to wait before trying again, for rate limits.
        public var retryIn: Double?
        /// Whether trying again may help (rate limits, 5xx, transport errors).
        public var isTransient: Bool
        /// The HTTP status of the answer; `nil` when none came.
        public var httpStatus: Int?

        /// `CODE: message`.
        public var description: String { "\(code): \(message)" }

        /// Creates a failure; `message` (often a server's words) is made printable, and
        /// a server's `retryIn` is kept within `0...longestWait`; 0 or less, or NaN, is no advice at
        /// all (the service has sent `retryIn: 0` with a 429: it does not mean "now").
        public init(code: APIErrorCode, message: String, retryIn: Double? = nil, isTransient: Bool = false, httpStatus: Int? = nil) {
            self.code = code
            self.message = TerminalText.printable(message)
            self.retryIn = retryIn.flatMap { $0.isNaN || $0 <= 0 ? nil : min($0, Self.longestWait) }
            self.isTransient = isTransient
            self.httpStatus = httpStatus
        }

        /// Whether the answer settles what became of the Assembly asked about: there is none
        /// (404), or it failed (an `error` in a 200 status). Anything else says nothing about it.
        public var settlesTheAssembly: Bool { httpStatus == 404 || httpStatus == 200 }

        /// The longest wait a server can ask for, in seconds; the run's own timeout still applies.
        public static let longestWait: Double = 3600
    }

    /// libcurl's codes for a host that cannot be resolved (6) or connected to (7).
    static let connectionCodes: Set<Int> = [6, 7]

    let http: HTTPClient
    /// The API's base URL, such as `https://api2.transloadit.com`.
    public let endpoint: String
    /// Learns the service's time from every answer.
    let clock: ServiceClock

    /// Creates a client for `endpoint`.
    public init(http: HTTPClient, endpoint: String, clock: ServiceClock = ServiceClock()) {
        self.http = http
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.clock = clock
    }

    /// `POST /assemblies/{id}` with `params` and `signature` first, then the expected upload count.
    public func create(id: String, params: String, signature: String?, expectedUploads: Int) async throws(Failure) -> AssemblyState {
        try await send(Self.signedForm(
            to: endpoint + "/assemblies/" + id, params: params, signature: signature, more: [("tus_num_expected_upload_files", String(expectedUploads))]))
    }

    /// The status of `assembly`, at its status URL or the endpoint's own for its id (`status(at:wait:)`).
    public func status(_ assembly: AssemblyReference, wait: Int?) async throws(Failure) -> AssemblyState {
        try await status(at: url(of: assembly), wait: wait)
    }

    /// `GET` the status at `url`; with `wait`, asks the server to hold the answer up to that many
    /// seconds until the Assembly moves on (only for a server that offered it: `statusWait`).
    public func status(at url: String, wait: Int? = nil) async throws(Failure) -> AssemblyState {
        let headers = wait.map { [(StatusWait.header, String($0))] } ?? []
        return try await send(HTTPRequest(method: "GET", url: url, headers: headers, timeouts: HTTPTimeouts(total: .seconds(60 + (wait ?? 0)))))
    }

    /// Where `assembly`'s status is read: its own URL when known, else the endpoint's for its id.
    public func url(of assembly: AssemblyReference) -> String {
        assembly.statusURL ?? endpoint + "/assemblies/" + assembly.id
    }

    /// `POST {url}/replay` with signed `params` (new `steps`, `fields`, `notify_url`, or none to
    /// run the same again): the new Assembly's status.
    public func replay(_ url: String, params: String, signature: String?) async throws(Failure) -> AssemblyState {
        try await send(Self.signedForm(to: url + "/replay", params: params, signature: signature))
    }

    /// A POST of `params` and `signature` first (a server reads them before anything else), then `more`, urlencoded.
    private static func signedForm(to url: String, params: String, signature: String?, more: [(String, String)] = []) -> HTTPRequest {
        let fields = [("params", params)] + (signature.map { [("signature", $0)] } ?? []) + more
        let body = fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
        return HTTPRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Transloadit-Client", ClientIdentity.transloaditClient)],
            body: .data(Data(body.utf8)), timeouts: HTTPTimeouts(total: .seconds(120)))
    }

    /// Cancels `assembly`, at its status URL or the endpoint's own for its id.
    public func cancel(_ assembly: AssemblyReference) async throws(Failure) -> AssemblyState {
        try await send(HTTPRequest(method: "DELETE", url: url(of: assembly), timeouts: HTTPTimeouts(total: .seconds(60))))
    }

    private func send(_ request: HTTPRequest) async throws(Failure) -> AssemblyState {
        let response: HTTPResponse
        do {
            response = try await http.send(request)
        } catch let error as HTTPError {
            // No connection at all (nothing listens, no such host): said as such, so a run can give up soon.
            if case .transport(let code, _) = error.kind, Self.connectionCodes.contains(code) {
                throw Failure(code: .cannotConnect, message: error.description, retryIn: nil, isTransient: true)
            }
            throw Failure(code: .network, message: "\(error)", retryIn: nil, isTransient: error.isTransient)
        } catch {
            throw Failure(code: .network, message: "\(error)", retryIn: nil, isTransient: true)
        }
        clock.observe(dateHeader: response.headers["Date"])
        guard let document = AssemblyStatusDocument.decode(response.body) else {
            throw Failure(
                code: .http(response.status), message: "\(request.summary) answered without a JSON status: \(response.bodyText(limit: 200))",
                retryIn: response.retryAfter, isTransient: response.status >= 500 || response.status == 429, httpStatus: response.status)
        }
        var state = AssemblyState(document)
        state.statusWait = StatusWait.seconds(response.headers[StatusWait.header])
        if let error = state.error {
            let limited = error == .rateLimitReached || response.status == 429
            // A signature the service took for expired: say how far this machine's clock is off.
            let message = error == .authExpired ? [state.message ?? "", clock.explanation].filter { !$0.isEmpty }.joined(separator: "; ") : state.message ?? ""
            throw Failure(
                code: error, message: message, retryIn: state.retryIn.flatMap { $0 > 0 ? $0 : nil } ?? response.retryAfter,
                isTransient: limited || response.status >= 500 || error == .statusRateLimitReached, httpStatus: response.status)
        }
        guard (200..<300).contains(response.status) else {
            throw Failure(code: .http(response.status), message: state.message ?? "", retryIn: response.retryAfter,
                          isTransient: response.status >= 500 || response.status == 429, httpStatus: response.status)
        }
        if let id = state.assemblyID, !AssemblyID.isValid(id) {
            throw Failure(
                code: .invalidAssemblyID, message: "\(request.summary) answered the assembly_id '\(TerminalText.printable(String(id.prefix(80))))', which is not 32 lowercase hexadecimal characters",
                retryIn: nil, isTransient: false)
        }
        return state
    }

    /// Percent-encoding for `application/x-www-form-urlencoded` bodies and query strings.
    public static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
