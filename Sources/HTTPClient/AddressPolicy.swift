import Foundation

/// Which addresses a request may connect to, checked on every connection libcurl opens (after
/// name resolution, for each redirect): a URL whose name resolves to the machine itself or to a
/// private network cannot reach services that trust their neighbours (server-side request forgery,
/// DNS rebinding included).
public struct AddressPolicy: Sendable, Equatable {
    /// Whether loopback addresses (127.0.0.0/8, ::1) are allowed.
    public var allowsLoopback: Bool

    /// Creates a policy that refuses every address but public ones, loopback included unless allowed.
    public init(allowsLoopback: Bool = false) {
        self.allowsLoopback = allowsLoopback
    }

    /// Why a connection to `address` is refused ("127.0.0.1 is a loopback address"), or `nil`.
    public func refusal(for address: NetworkAddress) -> String? {
        switch address.kind {
        case .loopback: allowsLoopback ? nil : "\(address) is a loopback address"
        case .restricted(let what): "\(address) is \(what)"
        case .public: nil
        }
    }
}

/// An IPv4 or IPv6 address, as bytes.
public struct NetworkAddress: Sendable, Equatable, CustomStringConvertible {
    /// 4 or 16 bytes in network order.
    public let bytes: [UInt8]

    /// What an address is, for `AddressPolicy`.
    public enum Kind: Sendable, Equatable {
        case loopback
        /// Not a public host: the reason, such as "a private address".
        case restricted(String)
        case `public`
    }

    /// An address from its 4 or 16 bytes; `nil` for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// An address in its text form (`192.0.2.1`, `2001:db8::1`).
    public init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// The address a `sockaddr` of family AF_INET or AF_INET6 holds.
    init?(socketAddress: UnsafeRawPointer, family: Int32) {
        switch family {
        case AF_INET:
            let address = socketAddress.loadUnaligned(as: sockaddr_in.self).sin_addr
            self.bytes = withUnsafeBytes(of: address) { Array($0) }
        case AF_INET6:
            let address = socketAddress.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            self.bytes = withUnsafeBytes(of: address) { Array($0) }
        default:
            return nil
        }
    }

    public var description: String {
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Loopback, a private, shared, link-local or otherwise special range, or public.
    public var kind: Kind {
        if bytes.count == 16 {
            // IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d) and IPv4-compatible
            // (::a.b.c.d) addresses reach IPv4 hosts.
            let prefix = Array(bytes.prefix(12))
            let embedsV4 = [[0, 0, 0, 0], [0, 0, 0xff, 0xff], [0xff, 0xff, 0, 0]].contains(Array(prefix.suffix(4)))
            if embedsV4, prefix.prefix(8).allSatisfy({ $0 == 0 }), let v4 = NetworkAddress(bytes: Array(bytes.suffix(4))) {
                if bytes.dropLast().allSatisfy({ $0 == 0 }) { return bytes.last == 1 ? .loopback : .restricted("an unspecified address") }
                return v4.kind
            }
            return Self.kind(v6: bytes)
        }
        return Self.kind(v4: bytes)
    }

    private static func kind(v4 bytes: [UInt8]) -> Kind {
        let (a, b) = (bytes[0], bytes[1])
        switch true {
        case a == 127: return .loopback
        case a == 0: return .restricted("an unspecified address (it reaches this machine)")
        case a == 10, a == 172 && (16...31).contains(b), a == 192 && b == 168: return .restricted("a private address")
        case a == 100 && (64...127).contains(b): return .restricted("a shared (carrier-grade NAT) address")
        case a == 169 && b == 254: return .restricted("a link-local address (cloud metadata services live there)")
        case a == 192 && b == 0 && bytes[2] == 0: return .restricted("a protocol-assignment address")
        case a == 198 && (18...19).contains(b): return .restricted("a benchmarking address")
        case a == 192 && b == 0 && bytes[2] == 2, a == 198 && b == 51 && bytes[2] == 100, a == 203 && b == 0 && bytes[2] == 113:
            return .restricted("a documentation address")
        case a >= 224: return .restricted("a multicast or reserved address")
        default: return .public
        }
    }

    private static func embedded(_ address: NetworkAddress?, _ what: String) -> Kind {
        switch address?.kind {
        case .public?: .public
        case .restricted(let reason)?: .restricted(reason)
        case .loopback?, nil: .restricted("\(what) of a loopback address")
        }
    }

    private static func kind(v6 bytes: [UInt8]) -> Kind {
        if bytes.dropLast().allSatisfy({ $0 == 0 }) { return bytes[15] == 1 ? .loopback : .restricted("an unspecified address") }
        switch true {
        case bytes[0] & 0xfe == 0xfc: return .restricted("a private (unique local) address")
        case bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80: return .restricted("a link-local address")
        case bytes[0] == 0xfe && bytes[1] & 0xc0 == 0xc0: return .restricted("a site-local address")
        case bytes.starts(with: [0x20, 0x01, 0x0d, 0xb8]): return .restricted("a documentation address")
        case bytes.starts(with: [0x20, 0x01, 0x00, 0x00]): return .restricted("a Teredo address (it hides an IPv4 address)")
        case bytes.starts(with: [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01]): return .restricted("a local-use NAT64 address")
        case bytes.starts(with: [0x01, 0x00, 0, 0, 0, 0, 0, 0]): return .restricted("a discard-only address")
        case bytes[0] == 0xff: return .restricted("a multicast address")
        case bytes[0] == 0x00 && bytes[1] == 0x64 && bytes[2] == 0xff && bytes[3] == 0x9b:
            // NAT64 (64:ff9b::/96) embeds an IPv4 address: judged by that address, but it is a
            // gateway's, never this machine's loopback.
            return embedded(NetworkAddress(bytes: Array(bytes.suffix(4))), "a NAT64 address")
        case bytes[0] == 0x20 && bytes[1] == 0x02:
            // 6to4 (2002::/16) embeds an IPv4 address in bytes 2...5.
            return embedded(NetworkAddress(bytes: Array(bytes[2..<6])), "a 6to4 address")
        default: return .public
        }
    }
}
