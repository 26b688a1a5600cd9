import APIClients
import Basics
import Foundation
import HTTPClient
import Wire

/// Asks a signing backend: POSTs `{"params": "<exact string>"}` with a bearer token and accepts
/// the answer only if it is a 2xx (redirects are refused), returns the very same params and a
/// well-formed signature, all within the timeout.
public struct URLSigner: ParamsSigner {
    /// The signing endpoint.
    public var url: String
    private let tokens: (any BearerTokenSource)?
    private let http: HTTPClient
    /// The longest a signing request may take.
    public var timeout: Duration
    /// The clock a transient refusal's wait is waited on.
    private let clock: any MonotonicClock

    /// Creates a URL signer.
    public init(url: String, tokens: (any BearerTokenSource)?, http: HTTPClient, timeout: Duration = .seconds(15), clock: any MonotonicClock = SystemClock()) {
        self.url = url
        self.tokens = tokens
        self.http = http
        self.timeout = timeout
        self.clock = clock
    }

    /// A signer's refusal in words: its code and message once, then each violation with its
    /// path (`pipeline signer` answers `{"error", "message", "violations"}`); other bodies as text.
    static func refusal(_ response: HTTPResponse) -> String {
        guard let answer = document(SignerRefusal.self, response), let code = answer.error else {
            return response.bodyText(limit: 300)
        }
        var text = code.rawValue + (answer.message.map { ": " + $0 } ?? "")
        let violations = answer.violations.prefix(10).compactMap { violation -> String? in
            guard let message = violation.message else { return nil }
            let path = violation.path.map { $0.isEmpty ? "" : $0 + ": " } ?? ""
            return path + message + (violation.id.map { " [\($0)]" } ?? "")
        }
        if !violations.isEmpty { text += " (" + violations.joined(separator: "; ") + ")" }
        return TerminalText.printable(text)
    }

    /// The signer's answer read as `type`; nil when its body is not JSON of that shape.
    static func document<Document: Decodable>(_ type: Document.Type, _ response: HTTPResponse) -> Document? {
        guard let parsed = JSONValue.parseIfValid(response.body) else { return nil }
        do { return try JSONValueDecoder.decode(type, from: parsed) } catch { return nil }  // not the shape asked for: the caller says what it expected
    }

    /// A transient refusal (503 or 429 with a short `retry_in`: keys being rotated at an identity
    /// provider, a quota's window) is asked again after the wait it states, three attempts in all;
    /// one that states no wait is not asked again.
    static let retryPolicy = RetryPolicy(attempts: 3, backoff: Backoff(.listed([])), longestStatedWait: .seconds(longestWait))
    /// The longest `retry_in` waited for; a longer one is a failure now.
    static let longestWait = 60

    /// Asks the signing backend for the signature of exactly `params`.
    public func sign(_ params: String) async throws(SignerError) -> String {
        var attempt = 1
        var response = try await send(params)
        while let stated = Self.transientWait(response), let wait = Self.retryPolicy.wait(afterAttempt: attempt, advice: .init(stated: .seconds(stated))) {
            do { try await clock.sleep(for: wait) } catch { throw SignerError("interrupted while the signer at \(url) asked to wait \(stated) s") }
            attempt += 1
            response = try await send(params)
        }
        guard (200..<300).contains(response.status) else {
            let hint = (300..<400).contains(response.status) ? " (redirects are refused: configure the final URL)" : ""
            throw SignerError("the signer at \(url) answered HTTP \(response.status)\(hint): \(Self.refusal(response))")
        }
        guard let answer = Self.document(SignerAnswer.self, response) else {
            throw SignerError("the signer at \(url) answered without 'params' and 'signature' strings")
        }
        let (returned, signature) = (answer.params, answer.signature)
        guard returned == params else {
            throw SignerError("the signer at \(url) returned different params than were sent; the signature was not used")
        }
        guard Signature.isWellFormed(signature) else {
            throw SignerError("the signer at \(url) returned a malformed signature (expected 'sha384:' and 96 hex digits)")
        }
        return signature
    }

    /// One signing request.
    private func send(_ params: String) async throws(SignerError) -> HTTPResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Accept", "application/json")]
        if let tokens { headers.append(("Authorization", "Bearer \(try await tokens.token())")) }
        let body: String
        do { body = try JSONValueEncoder.encode(SignerRequest(params: params)).serialized() } catch {
            throw SignerError("the params could not be put in a signing request: \(error)")
        }
        let request = HTTPRequest(
            method: "POST", url: url, headers: headers, body: .data(Data(body.utf8)),
            timeouts: HTTPTimeouts(connect: timeout, stallTime: timeout, total: timeout), followsRedirects: false,
            maxResponseBytes: 1 << 20)
        do {
            return try await http.send(request)
        } catch {
            throw SignerError("the signer at \(url) did not answer: \((error as? HTTPError)?.message ?? "\(error)")")
        }
    }

    /// Seconds to wait before asking again when `response` is a transient refusal (503 or 429)
    /// that says how long (`retry_in` in its body, else `Retry-After`), within `longestWait`.
    static func transientWait(_ response: HTTPResponse) -> Int? {
        guard response.status == 503 || response.status == 429 else { return nil }
        let stated = document(SignerRefusal.self, response)?.retryIn ?? response.retryAfter
        guard let stated, stated > 0, stated <= Double(longestWait) else { return nil }
        return Int(stated.rounded(.up))
    }
}
