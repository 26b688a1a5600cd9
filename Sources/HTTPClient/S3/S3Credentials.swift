/// An access key and its secret for an S3-compatible service. Printing one never shows the secret
/// (nor the session token): only the key id.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The access key id (not secret: it names the key).
    public var key: String
    /// The secret access key.
    public var secret: String
    /// A temporary session's token (`x-amz-security-token`), when the key is temporary.
    public var sessionToken: String?

    /// Creates credentials.
    public init(key: String, secret: String, sessionToken: String? = nil) {
        self.key = key
        self.secret = secret
        self.sessionToken = sessionToken
    }

    /// "key AKIA… (secret hidden)".
    public var description: String { "key \(key) (secret hidden)" }
    /// As `description`: the secret stays hidden in debug output too.
    public var debugDescription: String { description }
}

/// What libcurl signs a request with (AWS Signature V4, `CURLOPT_AWS_SIGV4`): the region, the
/// service and the credentials. The caller sets `x-amz-content-sha256` (libcurl 7.88 does not).
public struct AWSSigning: Sendable, CustomStringConvertible {
    /// The region, such as `us-east-1`.
    public var region: String
    /// The service, `s3`.
    public var service: String
    /// The key and secret the request is signed with.
    public var credentials: S3Credentials

    /// Creates a signing description.
    public init(region: String, service: String = "s3", credentials: S3Credentials) {
        self.region = region
        self.service = service
        self.credentials = credentials
    }

    /// The value of `CURLOPT_AWS_SIGV4`: `aws:amz:REGION:SERVICE`.
    var provider: String { "aws:amz:\(region):\(service)" }

    /// "AWS SigV4 us-east-1/s3, key …": never the secret.
    public var description: String { "AWS SigV4 \(region)/\(service), \(credentials)" }
}
