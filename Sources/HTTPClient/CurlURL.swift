internal import CCurl

/// URLs as libcurl itself reads them, so that a check sees the host a request really goes to
/// (`http://127.0.0.1:1@127.0.0.2/` goes to 127.0.0.2).
public enum CurlURL {
    /// The lowercased scheme and host libcurl connects to for `url`; nil when it cannot parse it.
    public static func target(of url: String) -> (scheme: String, host: String)? {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK,
              let scheme = part(handle, CURLUPART_SCHEME), let host = part(handle, CURLUPART_HOST) else { return nil }
        return (scheme.lowercased(), host.lowercased())
    }

    /// Whether a bearer token may be sent to `url`: https, or http to the loopback host.
    public static func allowsSecrets(_ url: String) -> Bool {
        guard let target = target(of: url) else { return false }
        return target.scheme == "https" || (target.scheme == "http" && ["127.0.0.1", "localhost", "[::1]"].contains(target.host))
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
