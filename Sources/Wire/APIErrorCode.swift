/// An `error` code of the Assembly API that more than one side here speaks (the runner reads
/// what the engine writes), so none of them spells it: compare with `failure.code == .rateLimitReached`.
public struct APIErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The code as it travels.
    public let rawValue: String

    private init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// Too many Assemblies (or requests) for now; `info.retryIn` says when to try again.
    public static let rateLimitReached = APIErrorCode("RATE_LIMIT_REACHED")
    /// Too many status requests for now; also worth waiting for.
    public static let statusRateLimitReached = APIErrorCode("ASSEMBLY_STATUS_FETCHING_RATE_LIMIT_REACHED")
    /// An Assembly with the requested id exists (a create whose answer was lost made it).
    public static let assemblyIDTaken = APIErrorCode("DO_NOT_REUSE_ASSEMBLY_IDS")
    /// An Assembly id that is not 32 lowercase hexadecimal characters.
    public static let invalidAssemblyID = APIErrorCode("INVALID_ASSEMBLY_ID")
    /// No Assembly has the id asked about.
    public static let assemblyNotFound = APIErrorCode("ASSEMBLY_NOT_FOUND")
    /// A step stopped because its Assembly was canceled.
    public static let assemblyCanceled = APIErrorCode("ASSEMBLY_CANCELED")
    /// The signature's `auth.expires` is past, by the server's clock.
    public static let authExpired = APIErrorCode("AUTH_EXPIRED")
    /// The server could not keep what it was sent (its disk).
    public static let storageError = APIErrorCode("SERVER_STORAGE_ERROR")
}

/// Whether the code `text` (as received) is `code`.
public func == (text: String, code: APIErrorCode) -> Bool { text == code.rawValue }

/// Whether the code `text` (as received) is `code`, for optional codes.
public func == (text: String?, code: APIErrorCode) -> Bool { text == code.rawValue }
