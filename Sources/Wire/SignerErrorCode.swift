/// An `error` code of the signing backend's API (`pipeline signer`), as a value: the signer
/// answers with these and no other file spells one. A client shows them as they come.
public struct SignerErrorCode: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The code as it travels.
    public let rawValue: String

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// A code as a signer sent it (which may be one no constant here names).
    public init(received: String) { rawValue = received }

    public var description: String { rawValue }

    /// Decodes the code from its string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the code as its string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // — Requests
    /// A route the signer does not have.
    public static let notFound = SignerErrorCode("NOT_FOUND")
    /// A body that is not the JSON asked for.
    public static let malformedRequest = SignerErrorCode("MALFORMED_REQUEST")
    /// JSON with a key twice in one object.
    public static let duplicateKey = SignerErrorCode("DUPLICATE_KEY")
    /// Params that are not a JSON object of Assembly Instructions.
    public static let invalidParams = SignerErrorCode("INVALID_PARAMS")
    /// Params the policy does not allow (with every violation).
    public static let policyViolation = SignerErrorCode("POLICY_VIOLATION")
    /// A caller past its quota (with `retry_in`).
    public static let quotaExceeded = SignerErrorCode("QUOTA_EXCEEDED")
    /// A Template the policy names could not be looked up.
    public static let templateLookupFailed = SignerErrorCode("TEMPLATE_LOOKUP_FAILED")
    /// The signer failed.
    public static let `internal` = SignerErrorCode("INTERNAL")

    // — Callers and their tokens
    /// No bearer token.
    public static let noToken = SignerErrorCode("NO_TOKEN")
    /// A token that is not known, or not a well-formed or valid JWT.
    public static let invalidToken = SignerErrorCode("INVALID_TOKEN")
    /// A JWT past its `exp`.
    public static let tokenExpired = SignerErrorCode("TOKEN_EXPIRED")
    /// A JWT before its `nbf` or `iat`.
    public static let tokenNotYetValid = SignerErrorCode("TOKEN_NOT_YET_VALID")
    /// A JWT of an issuer the signer does not trust.
    public static let wrongIssuer = SignerErrorCode("WRONG_ISSUER")
    /// A JWT meant for someone else.
    public static let wrongAudience = SignerErrorCode("WRONG_AUDIENCE")
    /// A JWT signed with an algorithm other than RS256 and ES256.
    public static let unsupportedAlgorithm = SignerErrorCode("UNSUPPORTED_ALGORITHM")
    /// A JWT naming a key its provider does not list.
    public static let unknownKey = SignerErrorCode("UNKNOWN_KEY")
    /// A JWT naming an RSA key too short to trust.
    public static let weakKey = SignerErrorCode("WEAK_KEY")
    /// A key the token names that the provider did not list when last asked (its keys are
    /// fetched again soon: `retry_in`).
    public static let keyNotYetFetched = SignerErrorCode("KEY_NOT_YET_FETCHED")
    /// The provider's keys cannot be fetched now.
    public static let keysUnavailable = SignerErrorCode("KEYS_UNAVAILABLE")
    /// A JWT whose claims match no identity rule.
    public static let noMatchingIdentity = SignerErrorCode("NO_MATCHING_IDENTITY")
}
