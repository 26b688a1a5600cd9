/// Which URLs a bearer token or a secret may be sent to.
public enum SecureURL {
    /// https with a host, or http to the loopback host only.
    public static func allowsSecrets(_ url: String) -> Bool {
        let lowered = url.lowercased()
        guard !lowered.contains(where: \.isWhitespace) else { return false }
        if lowered.hasPrefix("https://") { return lowered.count > 8 && !lowered.dropFirst(8).hasPrefix("/") }
        for host in ["http://127.0.0.1", "http://localhost", "http://[::1]"] where lowered.hasPrefix(host) {
            let rest = lowered.dropFirst(host.count)
            return rest.isEmpty || rest.first == ":" || rest.first == "/"
        }
        return false
    }
}
