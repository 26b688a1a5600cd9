import Crypto
import Foundation

/// Pre-signed GET URLs (AWS Signature V4 in the query string), computed here with HMAC-SHA256: a
/// URL anyone may fetch until it expires, without the credentials.
public struct S3Presigner: Sendable {
    /// The bucket the objects are in.
    public let bucket: S3Bucket
    /// The credentials that sign.
    public let credentials: S3Credentials

    /// Creates a presigner.
    public init(bucket: S3Bucket, credentials: S3Credentials) {
        self.bucket = bucket
        self.credentials = credentials
    }

    /// A URL that GETs `key` for `expires` seconds (1 to 604,800) from `now`, with `scheme`
    /// (`http` or `https`; the signature covers the host, not the scheme).
    public func url(key: String, expires: Int, now: Date, scheme: String? = nil) -> String {
        let (date, stamp) = Self.timestamps(now)
        let scope = "\(date)/\(bucket.region)/s3/aws4_request"
        var pairs: [(String, String)] = [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", "\(credentials.key)/\(scope)"), ("X-Amz-Date", stamp),
            ("X-Amz-Expires", String(min(max(expires, 1), 604_800))), ("X-Amz-SignedHeaders", "host"),
        ]
        if let token = credentials.sessionToken { pairs.append(("X-Amz-Security-Token", token)) }
        let query = S3Encoding.canonicalQuery(pairs)
        let path = (bucket.pathStyle ? "/" + bucket.name : "") + "/" + S3Encoding.path(key)
        let canonical = ["GET", path, query, "host:\(bucket.requestHost)", "", "host", "UNSIGNED-PAYLOAD"].joined(separator: "\n")
        let toSign = ["AWS4-HMAC-SHA256", stamp, scope, SHA256.hex(canonical)].joined(separator: "\n")
        var signingKey = Array("AWS4\(credentials.secret)".utf8)
        for part in [date, bucket.region, "s3", "aws4_request"] { signingKey = KeyedHash.sha256(part, keyBytes: signingKey) }
        let signature = Hex.encode(KeyedHash.sha256(toSign, keyBytes: signingKey))
        return "\(scheme ?? bucket.scheme)://\(bucket.requestHost)\(path)?\(query)&X-Amz-Signature=\(signature)"
    }

    /// `yyyyMMdd` and `yyyyMMdd'T'HHmmss'Z'` of `now` in UTC.
    static func timestamps(_ now: Date) -> (date: String, stamp: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: now)
        let date = String(format: "%04d%02d%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
        return (date, date + String(format: "T%02d%02d%02dZ", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0))
    }
}
