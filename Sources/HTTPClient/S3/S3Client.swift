import Basics
import Crypto
import Foundation

/// A client of one bucket on S3 or an S3-compatible service (MinIO, SeaweedFS, R2…): requests
/// signed with AWS Signature V4 by libcurl, retried on 5xx and `SlowDown`, large files sent in
/// multipart uploads (see `S3PartSize`). Every error is an `S3Error`, which never holds the
/// credentials or a signature.
public struct S3Client: Sendable {
    /// The bucket.
    public let bucket: S3Bucket
    /// The credentials requests are signed with.
    public let credentials: S3Credentials
    /// How often and how patiently a failed request is tried again.
    public var retry: S3Retry
    /// The part size multipart uploads prefer (at least 5 MiB); a file larger than one part goes
    /// in several.
    public var preferredPartSize: Int64
    /// Which addresses requests may connect to; nil allows any (a host the operator configured).
    public var addressPolicy: AddressPolicy?
    let http: HTTPClient

    /// Creates a client of `bucket` sending through `http`.
    public init(bucket: S3Bucket, credentials: S3Credentials, http: HTTPClient, retry: S3Retry = S3Retry(), preferredPartSize: Int64 = S3PartSize.minimum) {
        self.bucket = bucket
        self.credentials = credentials
        self.http = http
        self.retry = retry
        self.preferredPartSize = preferredPartSize
    }

    /// The hash of an empty body, as `x-amz-content-sha256` names it.
    static let emptyHash = SHA256.hex([UInt8]())
    /// `x-amz-content-sha256` for a body the server need not check.
    static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// One request, sent and retried as `retry` says, until it gets a 2xx; the answer's errors
    /// (including one in the body of a 200, as a multipart completion may give) become `S3Error`.
    func send(
        _ operation: String, method: String, key: String, query: String = "", headers: [(name: String, value: String)] = [],
        body: HTTPRequest.Body = .none, payloadHash: String = S3Client.emptyHash, responseFile: String? = nil,
        maxResponseBytes: Int = 16 << 20, errorInBody: Bool = false
    ) async throws -> HTTPResponse {
        var sent = headers + [("x-amz-content-sha256", payloadHash)]
        if let token = credentials.sessionToken { sent.append(("x-amz-security-token", token)) }
        let request = HTTPRequest(
            method: method, url: bucket.url(key: key, query: query), headers: sent, body: body,
            timeouts: HTTPTimeouts(connect: .seconds(15), stallTime: .seconds(60), stallBytesPerSecond: 1), maxResponseBytes: maxResponseBytes,
            responseFile: responseFile, addressPolicy: addressPolicy, awsSigning: AWSSigning(region: bucket.region, credentials: credentials))
        var attempt = 0
        while true {
            attempt += 1
            let response: HTTPResponse
            do {
                response = try await http.send(request)
            } catch let error as HTTPError {
                if error.kind == .cancelled { throw CancellationError() }
                if error.isTransient, attempt < retry.attempts {
                    try await retry.pause(after: attempt, asked: nil)
                    continue
                }
                throw S3Error(operation: operation, status: nil, code: nil, message: error.message, attempts: attempt)
            }
            let text = responseFile == nil ? String(decoding: response.body.prefix(64 << 10), as: UTF8.self) : ""
            let failedInBody = errorInBody && text.contains("<Error>")
            if (200..<300).contains(response.status), !failedInBody { return response }
            let code = S3XML.value("Code", in: text)
            if S3Error.isRetryable(status: failedInBody ? 500 : response.status, code: code), attempt < retry.attempts {
                try await retry.pause(after: attempt, asked: response.retryAfter)
                continue
            }
            let message = S3XML.value("Message", in: text) ?? (text.isEmpty || text.hasPrefix("<") ? Self.reason(response.status) : response.bodyText())
            throw S3Error(operation: operation, status: response.status, code: code, message: message, attempts: attempt)
        }
    }

    /// A few words for a status that came without S3's XML (a HEAD's answer has no body).
    static func reason(_ status: Int) -> String {
        switch status {
        case 403: "access denied"
        case 404: "not found"
        case 412: "precondition failed"
        case 500...: "server error"
        default: ""
        }
    }

    /// "PUT a/b.jpg in bucket 'site'": how errors name a request.
    func describe(_ verb: String, _ key: String) -> String {
        key.isEmpty ? "\(verb) bucket '\(bucket.name)'" : "\(verb) '\(key)' in bucket '\(bucket.name)'"
    }
}

/// How a failed S3 request is tried again: up to `attempts` times in all, waiting `delay` doubled
/// each time (at most `maximumDelay`), or what the server's `Retry-After` asks when it is longer.
public struct S3Retry: Sendable {
    /// The most times a request is sent.
    public var attempts: Int
    /// The first wait.
    public var delay: Duration
    /// The longest wait.
    public var maximumDelay: Duration
    /// The clock waits are waited on.
    public var clock: any MonotonicClock

    /// Creates a retry rule.
    public init(attempts: Int = 5, delay: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(10), clock: any MonotonicClock = SystemClock()) {
        self.attempts = max(1, attempts)
        self.delay = delay
        self.maximumDelay = maximumDelay
        self.clock = clock
    }

    /// The rule as a `RetryPolicy`: the waits doubling from `delay` to `maximumDelay`; a longer
    /// `Retry-After` is waited, up to `maximumDelay`.
    public var policy: RetryPolicy {
        RetryPolicy(attempts: attempts, backoff: Backoff(.exponential(first: delay, factor: 2, cap: maximumDelay)),
                    longestStatedWait: maximumDelay, statedWaitExtendsBackoff: true)
    }

    /// Sleeps before attempt `attempt + 1`.
    func pause(after attempt: Int, asked: Double?) async throws {
        try await clock.sleep(for: policy.wait(afterAttempt: attempt, advice: .init(statedSeconds: asked)) ?? .zero)
    }
}
