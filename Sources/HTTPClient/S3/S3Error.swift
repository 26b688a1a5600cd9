import Foundation

/// An S3 request that failed: the service's answer (status and its error code, such as
/// `SignatureDoesNotMatch` or `NoSuchBucket`) or a transport failure. Its text names the
/// operation, the bucket and the key, never the credentials or a signed query.
public struct S3Error: Error, Sendable, CustomStringConvertible {
    /// What the request was for: "PUT photos/a.jpg in bucket 'site'".
    public var operation: String
    /// The HTTP status; nil when no answer came.
    public var status: Int?
    /// S3's error code from the answer's XML (`AccessDenied`, `NoSuchBucket`, `SlowDown`…).
    public var code: String?
    /// S3's message, or the transport's.
    public var message: String
    /// How many times the request was sent.
    public var attempts: Int

    /// Creates an error.
    public init(operation: String, status: Int?, code: String?, message: String, attempts: Int = 1) {
        self.operation = operation
        self.status = status
        self.code = code
        self.message = message
        self.attempts = attempts
    }

    /// "PUT a.jpg in bucket 'site': 403 SignatureDoesNotMatch (…)".
    public var description: String {
        var text = operation + ": "
        if let status { text += "\(status) " }
        if let code { text += code + " " }
        text += message.isEmpty ? "" : "(\(message))"
        if attempts > 1 { text += ", after \(attempts) attempts" }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// Whether trying again may help: a 5xx, S3's `SlowDown`, or a request that timed out.
    public static func isRetryable(status: Int, code: String?) -> Bool {
        status >= 500 || status == 429 || ["SlowDown", "RequestTimeout", "InternalError", "ServiceUnavailable"].contains(code ?? "")
    }
}
