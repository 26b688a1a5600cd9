import Basics

/// What a runner asks the signing backend (`pipeline signer`): `{"params": "<exact text>"}`.
public struct SignerRequest: Codable, Sendable, Equatable {
    /// The params text to sign, byte for byte as it will be sent to the API.
    public var params: String

    /// A request for the signature of `params`.
    public init(params: String) { self.params = params }
}

/// The signing backend's answer: the params it signed, exactly as sent, and their signature.
public struct SignerAnswer: Codable, Sendable, Equatable {
    /// The params signed.
    public var params: String
    /// `sha384:` and 96 hexadecimal digits.
    public var signature: String

    /// An answer.
    public init(params: String, signature: String) { (self.params, self.signature) = (params, signature) }
}

/// The signing backend's refusal: its code, words, every policy violation and, for a caller out
/// of quota, when to ask again. Read leniently: a field of another type is absent.
///
/// The documents are written with `JSONValueEncoder` and read with `JSONValueDecoder` from JSON
/// parsed strictly.
public struct SignerRefusal: Codable, Sendable, Equatable {
    /// One way the params break the policy.
    public struct Violation: Codable, Sendable, Equatable {
        /// The rule's stable id (`policy.robot-not-allowed`).
        public var id: String?
        /// What is wrong.
        public var message: String?
        /// Where in the params, dotted (`steps.thumb.width`).
        public var path: String?

        /// A violation.
        public init(id: String, message: String, path: String) { (self.id, self.message, self.path) = (id, message, path) }

        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            (id, message, path) = (values.lenient(String.self, .id), values.lenient(String.self, .message), values.lenient(String.self, .path))
        }
    }

    /// The code; nil in a body that names none (another backend's).
    public var error: SignerErrorCode?
    /// The words.
    public var message: String?
    /// Every violation, for `POLICY_VIOLATION`.
    public var violations: [Violation]
    /// Seconds to wait before asking again.
    public var retryIn: Double?

    /// A refusal.
    public init(error: SignerErrorCode, message: String, violations: [Violation] = [], retryIn: Int? = nil) {
        (self.error, self.message, self.violations, self.retryIn) = (error, message, violations, retryIn.map(Double.init))
    }

    enum CodingKeys: String, CodingKey {
        case error, message, violations
        case retryIn = "retry_in"
    }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        error = values.lenient(SignerErrorCode.self, .error)
        message = values.lenient(String.self, .message)
        violations = values.lenientList(Violation.self, .violations)
        retryIn = values.lenient(Double.self, .retryIn)
    }

    /// The signer writes `message` and `violations` always, `retry_in` as whole seconds when it has one.
    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encodeIfPresent(error, forKey: .error)
        try values.encode(message ?? "", forKey: .message)
        try values.encode(violations, forKey: .violations)
        try values.encodeIfPresent(retryIn.map { Int($0.rounded(.up)) }, forKey: .retryIn)
    }
}
