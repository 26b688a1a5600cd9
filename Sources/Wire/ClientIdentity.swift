/// Who this tool is on the wire.
public enum ClientIdentity {
    /// The tool's version (`pipeline --version`, packages, the client header).
    public static let version = "0.1.0"
    /// When this version was made (the manual page's date).
    public static let versionDate = "2026-12-01"
    /// The `Transloadit-Client` header value the API reports as `client_agent`.
    public static let transloaditClient = "pipeline:" + version
}
