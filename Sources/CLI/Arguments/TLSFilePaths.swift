/// `--tls-cert` and `--tls-key` as given, for the commands that serve (`TLSFiles` reads them).
struct TLSFilePaths: Sendable {
    /// `--tls-cert`: the PEM certificate (chain).
    var certificate: String?
    /// `--tls-key`: its PEM private key.
    var key: String?

    init(_ arguments: ParsedArguments) {
        (certificate, key) = (arguments.value("tls-cert"), arguments.value("tls-key"))
    }
}
