import Synchronization

/// Which certificate authorities HTTPS servers are checked against: the system's, or a private
/// CA's bundle or folder (from `--ca-cert`, `CURL_CA_BUNDLE`, `SSL_CERT_FILE`, `SSL_CERT_DIR`).
public struct TLSTrust: Sendable, Equatable {
    /// A PEM file of CA certificates.
    public var caFile: String?
    /// A folder of hashed CA certificates (as `c_rehash` makes).
    public var caDirectory: String?

    /// Creates a trust setting; both `nil` means the system's CAs.
    public init(caFile: String? = nil, caDirectory: String? = nil) {
        self.caFile = caFile
        self.caDirectory = caDirectory
    }

    /// What the usual variables ask for: `CURL_CA_BUNDLE`, else `SSL_CERT_FILE`; `SSL_CERT_DIR`.
    public static func fromEnvironment(_ environment: [String: String]) -> TLSTrust {
        let file = [environment["CURL_CA_BUNDLE"], environment["SSL_CERT_FILE"]].compactMap { $0 }.first { !$0.isEmpty }
        let directory = environment["SSL_CERT_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        return TLSTrust(caFile: file, caDirectory: directory)
    }

    private static let current = Mutex(TLSTrust())

    /// The trust every `HTTPClient` of this process starts with; the command line sets it once.
    public static var processDefault: TLSTrust {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
