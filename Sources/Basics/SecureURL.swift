/// Which URLs a bearer token or a secret may be sent to, judged from the text as written (the
/// HTTP client checks again on the host libcurl parses before it sends any credential).
public enum SecureURL {
    /// https with a host, or http to the loopback host only, with no user information (`user@`)
    /// that could make another host look like it.
    public static func allowsSecrets(_ url: String) -> Bool {
        let lowered = url.lowercased()
        guard !lowered.contains(where: { $0.isWhitespace || $0 == "\\" }) else { return false }
        let scheme: String
        if lowered.hasPrefix("https://") { scheme = "https" } else if lowered.hasPrefix("http://") { scheme = "http" } else { return false }
        let rest = lowered.dropFirst(scheme.count + 3)
        let authority = rest.prefix { !"/?#".contains($0) }
        guard !authority.isEmpty else { return false }
        if scheme == "https" { return true }
        return namesLoopbackHost(authority)
    }

    /// Whether `url` is http or https to this machine's loopback host (127.0.0.1, localhost, [::1]),
    /// with no user information (`user@`) that could make another host look like it.
    public static func isLoopback(_ url: String) -> Bool {
        let lowered = url.lowercased()
        guard !lowered.contains(where: { $0.isWhitespace || $0 == "\\" }),
              let scheme = ["https://", "http://"].first(where: { lowered.hasPrefix($0) }) else { return false }
        return namesLoopbackHost(lowered.dropFirst(scheme.count).prefix { !"/?#".contains($0) })
    }

    /// Whether a lowercased authority (`host:port`) names the loopback host.
    private static func namesLoopbackHost(_ authority: Substring) -> Bool {
        guard !authority.contains("@") else { return false }
        let host: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || (after.first == ":" && after.dropFirst().allSatisfy(\.isNumber)) else { return false }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            guard parts.count == 1 || parts[1].allSatisfy(\.isNumber) else { return false }
        }
        return ["127.0.0.1", "localhost", "[::1]"].contains(String(host))
    }
}
