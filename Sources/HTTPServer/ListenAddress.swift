import Foundation

/// The address a server binds, IPv4 or IPv6, as the socket wants it, and how URLs and `Host`
/// headers name it (an IPv6 literal in brackets: `[::1]:8787`).
struct ListenAddress {
    private var storage = sockaddr_in6()
    /// Whether it is an IPv6 address (else IPv4).
    let isIPv6: Bool

    /// The address `host` (a literal, never a name) on `port`; nil when `host` is no IPv4 or IPv6 literal.
    init?(_ host: String, port: UInt16) {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { target in withUnsafeBytes(of: v4) { target.copyMemory(from: $0) } }
            isIPv6 = false
            return
        }
        guard inet_pton(AF_INET6, host, &storage.sin6_addr) == 1 else { return nil }
        storage.sin6_family = sa_family_t(AF_INET6)
        storage.sin6_port = port.bigEndian
        isIPv6 = true
    }

    /// Calls `body` with the address as a `sockaddr` (a `sockaddr_in6` for IPv6, else a `sockaddr_in`).
    mutating func withSocketAddress<Result>(_ body: (UnsafeMutablePointer<sockaddr>) -> Result) -> Result {
        withUnsafeMutablePointer(to: &storage) { pointer in pointer.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }

    /// How a URL names the server bound to `host`: a wildcard as the loopback address of its
    /// family, an IPv6 literal in brackets.
    static func servedName(_ host: String) -> String {
        switch host {
        case "0.0.0.0": return "127.0.0.1"
        case "::": return "[::1]"
        default: return host.contains(":") ? "[\(host)]" : host
        }
    }

    /// Whether a `Host` header's name (without the port; an IPv6 literal in brackets) reaches a
    /// server bound to `host` directly: its own address, `localhost` for a loopback or wildcard
    /// bind, and any address literal (never a DNS name) of this machine's family for a wildcard.
    static func serves(_ name: String, listening host: String) -> Bool {
        if name == servedName(host) || name == host { return true }
        if name == "localhost" { return ["127.0.0.1", "0.0.0.0", "::1", "::"].contains(host) }
        var v4 = in_addr(), v6 = in6_addr()
        let isV4 = inet_pton(AF_INET, name, &v4) == 1
        let isV6 = name.hasPrefix("[") && name.hasSuffix("]") && inet_pton(AF_INET6, String(name.dropFirst().dropLast()), &v6) == 1
        switch host {
        case "0.0.0.0": return isV4
        case "::": return isV4 || isV6
        default: return false
        }
    }
}

extension HTTPServer {
    /// `host` as a URL names it: an IPv6 literal in brackets (`[::1]`), anything else as it is.
    public static func urlHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    /// Whether `host` is an address a server can listen on: an IPv4 or IPv6 literal, never a name.
    public static func canListen(on host: String) -> Bool { ListenAddress(host, port: 0) != nil }
}
