import Foundation

extension Endpoint {
    /// The hosted service, where Assemblies go when nothing names an endpoint.
    public static let hosted = Endpoint.url("https://api2.transloadit.com")

    /// `local` or an API URL, as a user writes it (`--endpoint`, `$TRANSLOADIT_ENDPOINT`).
    public init(_ text: String) {
        self = text == "local" ? .local : .url(text)
    }

    /// The endpoint a command uses: `override` (`--endpoint`), the manifest's, `$TRANSLOADIT_ENDPOINT`
    /// (empty is unset, as CI systems pass a variable they do not have), else the hosted service.
    public static func of(_ manifest: Manifest, override: String?, environment: [String: String]) -> Endpoint {
        let variable = environment["TRANSLOADIT_ENDPOINT"].flatMap { $0.isEmpty ? nil : Endpoint($0) }
        return override.map(Endpoint.init) ?? manifest.endpoint?.value ?? variable ?? hosted
    }

    /// How results, run state and Template records name it: `local`, or the URL without any
    /// `user:password@`, so no credential is ever written down.
    public var key: String {
        switch self {
        case .local: return "local"
        case .url(let url):
            guard let schemeEnd = url.range(of: "://") else { return url }
            let rest = url[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
            return String(url[..<schemeEnd.upperBound]) + String(rest[rest.index(after: at)...])
        }
    }

    /// Why the endpoint cannot be used, if it cannot: only `local` and http(s) URLs can.
    public var problem: String? {
        guard case .url(let url) = self else { return nil }
        let lowered = url.lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://") ? nil : "endpoint '\(url)' is not 'local' or an http(s) URL"
    }

    /// Whether the endpoint is the hosted service (`*.transloadit.com`), which allows about 250
    /// Assemblies a minute per account, so a run paces its creations there from the start.
    public var isHostedService: Bool {
        guard case .url(let url) = self, let host = URLComponents(string: url)?.host?.lowercased() else { return false }
        return host == "transloadit.com" || host.hasSuffix(".transloadit.com")
    }

    /// The endpoint as a user names it (`local`, or its URL as written).
    public var name: String {
        switch self {
        case .local: "local"
        case .url(let url): url
        }
    }
}
