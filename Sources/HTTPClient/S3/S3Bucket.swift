import Foundation

/// Where a bucket is and how its objects are addressed: the service's host (AWS by default), the
/// region requests are signed for, and path style (`host/bucket/key`, the service's `no_vhost`)
/// or virtual-host style (`bucket.host/key`).
public struct S3Bucket: Sendable, Equatable {
    /// The bucket's name.
    public var name: String
    /// The region requests are signed for.
    public var region: String
    /// `https` unless the host was given as `http://…`.
    public var scheme: String
    /// The host, with its port when it has one (`127.0.0.1:8333`); nil for AWS's own host.
    public var host: String?
    /// Whether the bucket goes in the path rather than in the host name.
    public var pathStyle: Bool

    /// A bucket on AWS (`host` nil) or on an S3-compatible service at `host` (`minio.example.com`,
    /// `http://127.0.0.1:9000`); nil when `host` is not a plain host name with an optional port.
    public init?(name: String, region: String, host: String? = nil, pathStyle: Bool = false) {
        guard Self.isBucketName(name), !region.isEmpty, region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return nil }
        self.name = name
        self.region = region
        var scheme = "https"
        var bare = host?.trimmingCharacters(in: .whitespaces)
        if let given = bare, let range = given.range(of: "://") {
            scheme = given[..<range.lowerBound].lowercased()
            bare = String(given[range.upperBound...])
        }
        while bare?.hasSuffix("/") == true { bare?.removeLast() }
        if let bare {
            guard ["http", "https"].contains(scheme), !bare.isEmpty,
                  bare.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:[]".contains($0)) }) else { return nil }
        }
        self.scheme = scheme
        // AWS's global host (the service's default `host`) serves us-east-1; elsewhere the region's own.
        self.host = bare == "s3.amazonaws.com" && region != "us-east-1" ? nil : bare
        // A bucket name with dots breaks TLS under virtual hosts; a host with a port is rarely set up for them.
        self.pathStyle = pathStyle || name.contains(".")
    }

    /// The host requests go to, bucket included in virtual-host style.
    public var requestHost: String {
        let service = host ?? "s3.\(region).amazonaws.com"
        return pathStyle ? service : "\(name).\(service)"
    }

    /// The URL of the object `key` (or of the bucket, for an empty key), with `query` (already
    /// encoded, its pairs in sorted order) appended.
    public func url(key: String, query: String = "") -> String {
        let path = (pathStyle ? "/" + name : "") + "/" + S3Encoding.path(key)
        return "\(scheme)://\(requestHost)\(path)" + (query.isEmpty ? "" : "?" + query)
    }

    /// The bucket's public URL prefix as the hosted service reports one (`url_prefix`'s default).
    public var publicPrefix: String {
        "\(scheme)://\(requestHost)/" + (pathStyle ? name + "/" : "")
    }

    /// Whether `name` is a valid bucket name: 3 to 63 lowercase letters, digits, `.` and `-`,
    /// starting and ending with a letter or digit.
    public static func isBucketName(_ name: String) -> Bool {
        name.range(of: #"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"#, options: .regularExpression) != nil
    }
}

/// Percent-encoding as AWS Signature V4 canonicalizes it: every byte but `A-Z a-z 0-9 - _ . ~`
/// as `%XX` (uppercase), `/` kept in paths.
public enum S3Encoding {
    /// `text` encoded for a query value or name.
    public static func query(_ text: String) -> String { encode(text, keepingSlash: false) }

    /// `key` encoded for a URL's path, its `/` kept.
    public static func path(_ key: String) -> String { encode(key, keepingSlash: true) }

    /// Pairs as a canonical query: sorted by name (then value), each encoded.
    public static func canonicalQuery(_ pairs: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = pairs.map { (query($0.0), query($0.1)) }
        let sorted = encoded.sorted { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
        return sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }

    /// The bytes sent as they are.
    private static let unreserved: Set<UInt8> = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8))

    private static func encode(_ text: String, keepingSlash: Bool) -> String {
        var output = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                output += String(format: "%%%02X", byte)
            }
        }
        return output
    }
}
