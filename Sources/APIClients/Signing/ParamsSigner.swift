import Wire
/// A signature that could not be had. Messages never contain a secret or a token.
public struct SignerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, and how to fix it.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// Something that signs params strings.
public protocol ParamsSigner: Sendable {
    /// The signature of exactly `params`.
    func sign(_ params: String) async throws(SignerError) -> String
}

/// Signs with an Auth Secret held in memory (read from the environment, never from a file in the repo).
public struct SecretSigner: ParamsSigner {
    private let secret: String

    /// Creates a signer with the secret in `variable`; the error names the variable, not its value.
    public init(environment: [String: String], variable: String = "TRANSLOADIT_SECRET") throws(SignerError) {
        guard let secret = environment[variable], !secret.isEmpty else {
            throw SignerError("$\(variable) is not set; export the Auth Secret there, or configure 'auth.signer' to sign elsewhere")
        }
        self.secret = secret
    }

    /// Creates a signer with a secret the caller already holds.
    public init(secret: String) {
        self.secret = secret
    }

    /// HMAC-SHA384 of `params` with the secret.
    public func sign(_ params: String) async throws(SignerError) -> String {
        Signature.sign(params, secret: secret)
    }
}
