import Foundation

/// Redirects the client follows itself (rather than libcurl), so that what the request carries
/// (API keys, credentials in custom headers) goes only to the origin the caller named.
enum Redirect {
    /// The most redirects one request follows.
    static let limit = 5
    /// Statuses that send the client elsewhere.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]
    /// Headers that say nothing about who asks, so they also go to another origin.
    static let portableHeaders: Set<String> = ["accept", "accept-encoding", "accept-language", "user-agent"]

    /// The request that `response` redirects `request` to, or `nil` when it is not a redirect to
    /// follow. Only GET and HEAD are followed; headers other than the portable ones are dropped
    /// once the redirect leaves `original`'s origin (scheme, host and port).
    static func next(after response: HTTPResponse, to request: HTTPRequest, original: HTTPRequest) throws(HTTPError) -> HTTPRequest? {
        guard statuses.contains(response.status), ["GET", "HEAD"].contains(request.method),
              let location = response.headers["Location"], !location.isEmpty else { return nil }
        guard let base = URL(string: request.url), let target = URL(string: location, relativeTo: base)?.absoluteURL,
              var parts = URLComponents(url: target, resolvingAgainstBaseURL: false) else {
            throw HTTPError(.transport(code: 3, message: "the server redirected to '\(location.prefix(200))', which is not a URL"), request: request.summary)
        }
        guard let scheme = parts.scheme?.lowercased(), ["http", "https"].contains(scheme), parts.host?.isEmpty == false else {
            // libcurl's "unsupported protocol", which no retry changes.
            throw HTTPError(.transport(code: 1, message: "the server redirected to a \(parts.scheme ?? "schemeless") URL; only http and https are followed"), request: request.summary)
        }
        parts.fragment = nil
        var next = request
        next.url = parts.string ?? target.absoluteString
        if URLOrigin.of(next.url) != URLOrigin.of(original.url) {
            next.headers = request.headers.filter { portableHeaders.contains($0.name.lowercased()) }
        }
        return next
    }

}

/// Where a URL's requests go: its scheme, host and port.
public enum URLOrigin {
    /// The path segments of `url` when none is `.` or `..` (percent-encoded or not), which a client
    /// or server would resolve to another path; nil otherwise or when it is no URL.
    public static func plainPathSegments(_ url: String) -> [String]? {
        guard let parts = URLComponents(string: url) else { return nil }
        let segments = parts.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard !segments.contains(where: { [".", ".."].contains($0.removingPercentEncoding ?? $0) }) else { return nil }
        return segments
    }

    /// `scheme://host:port`, lowercased, with the scheme's default port made explicit.
    public static func of(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), let host = parts.host?.lowercased() else { return nil }
        let port = parts.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }
}
