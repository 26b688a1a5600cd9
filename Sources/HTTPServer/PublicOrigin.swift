import Foundation
import Wire

/// Where the public URLs a server hands out (`assembly_ssl_url`, `tus_url`, `Location`) point, and
/// which `Host` headers it answers at all. Nothing a client sends is reflected unchecked: a `Host`
/// that names neither the public URL nor the address served is refused (421), which also closes
/// DNS rebinding against a server without authentication.
public struct PublicOrigin: Sendable, Equatable {
    /// `scheme://host[:port]` to build every URL from, whatever the request says; `nil` builds
    /// them from the `Host` of each (accepted) request.
    public var fixed: String?
    /// Take the origin from `Forwarded` or `X-Forwarded-Proto`/`X-Forwarded-Host`, as set by a
    /// proxy in front of this server.
    public var trustProxy: Bool

    /// Creates a rule; a `publicURL` that `normalize` refuses is ignored (callers check it first).
    public init(publicURL: String? = nil, trustProxy: Bool = false) {
        fixed = publicURL.flatMap(Self.normalize)
        self.trustProxy = trustProxy
    }

    /// `scheme://authority` of an http(s) URL without path, query or credentials; `nil` otherwise.
    public static func normalize(_ url: String) -> String? {
        var text = url
        while text.hasSuffix("/") { text.removeLast() }
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        let authority = String(text[schemeEnd.upperBound...])
        guard scheme == "http" || scheme == "https", isValidAuthority(authority) else { return nil }
        return scheme + "://" + authority.lowercased()
    }

    /// The origin for a request, or `nil` when its `Host` may not be answered.
    /// - Parameters:
    ///   - scheme: `http` or `https`, as served.
    ///   - served: whether a `host:port` is an address this server is reached at directly.
    func origin(headers: HTTPHeaders, scheme: String, served: (String) -> Bool) -> String? {
        if trustProxy, let forwarded = forwardedOrigin(headers) { return forwarded }
        let host = headers["Host"].map { Self.withPort($0.lowercased(), scheme: scheme) }
        if let fixed {
            guard let raw = headers["Host"]?.lowercased(), let host else { return fixed }
            // Through a proxy the Host names the public URL, whose scheme sets the default port.
            let publicScheme = fixed.hasPrefix("https") ? "https" : "http"
            let fixedAuthority = Self.withPort(String(fixed.dropFirst(publicScheme.count + 3)), scheme: publicScheme)
            return Self.withPort(raw, scheme: publicScheme) == fixedAuthority || served(host) ? fixed : nil
        }
        guard let host else { return nil }
        return served(host) ? scheme + "://" + host : nil
    }

    /// The client a trusted proxy forwards a request for: the last `X-Forwarded-For` address (the
    /// one the proxy next to the server added; earlier ones are the client's to write), else the
    /// last `Forwarded` element's `for=`; nil when the proxy names none.
    static func forwardedClient(_ headers: HTTPHeaders) -> String? {
        if let list = headers.values("X-Forwarded-For").last?.split(separator: ",").last {
            let client = list.trimmingCharacters(in: .whitespaces)
            if !client.isEmpty { return client }
        }
        guard let last = headers.values("Forwarded").last?.split(separator: ",").last else { return nil }
        for pair in last.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "for" { return parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        return nil
    }

    private func forwardedOrigin(_ headers: HTTPHeaders) -> String? {
        var host: String?
        var proto: String?
        if let forwarded = headers["Forwarded"] {
            // The first element is the one the outermost proxy added: `for=...;host=...;proto=https`.
            let first = forwarded.split(separator: ",").first ?? ""
            for pair in first.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { continue }
                let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                switch parts[0].lowercased() {
                case "host": host = value
                case "proto": proto = value.lowercased()
                default: break
                }
            }
        }
        host = host ?? headers["X-Forwarded-Host"]?.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) }
        proto = proto ?? headers["X-Forwarded-Proto"]?.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let host, Self.isValidAuthority(host) else { return nil }
        let scheme = proto ?? "http"
        guard scheme == "http" || scheme == "https" else { return nil }
        return scheme + "://" + host.lowercased()
    }

    /// `host:port` with the scheme's default port made explicit.
    static func withPort(_ authority: String, scheme: String) -> String {
        if authority.hasPrefix("[") {
            return authority.contains("]:") ? authority : authority + (scheme == "https" ? ":443" : ":80")
        }
        return authority.contains(":") ? authority : authority + (scheme == "https" ? ":443" : ":80")
    }

    /// A host name or address with an optional port: letters, digits, `.-_:[]` only.
    static func isValidAuthority(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 255 && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || ".-_:[]".unicodeScalars.contains(scalar))
        }
    }
}
