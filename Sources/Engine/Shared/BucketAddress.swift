import Foundation
import HTTPClient

/// Where engines sharing their files keep them: `s3://BUCKET/PREFIX`, with `?endpoint=URL` for an
/// S3-compatible service (path-style requests) and `?region=NAME` (default `us-east-1`). The key
/// and secret come from the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`), never
/// from the address, which shows in process listings and logs.
struct BucketAddress: Sendable, Equatable {
    let bucket: S3Bucket
    /// Prepended to every key; empty or ending in `/`.
    let prefix: String

    /// Reads `text`; the error says what is wrong and shows a valid address.
    init(parsing text: String) throws(BucketAddressError) {
        let example = "s3://my-bucket/engine?endpoint=http://127.0.0.1:8333"
        guard let components = URLComponents(string: text), components.scheme == "s3", let name = components.host, !name.isEmpty else {
            throw BucketAddressError(message: "'\(text)' is not an s3:// address; write it as \(example)")
        }
        guard components.user == nil, components.password == nil else {
            throw BucketAddressError(message: "the store's address must not hold a key or secret; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        var region = "us-east-1"
        var endpoint: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "region": region = item.value ?? region
            case "endpoint": endpoint = item.value
            default: throw BucketAddressError(message: "the store's address has an unknown setting '\(item.name)'; it takes endpoint= and region=")
            }
        }
        if let endpoint, !(endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://")) {
            throw BucketAddressError(message: "the store's endpoint '\(endpoint)' is not an http:// or https:// URL")
        }
        guard let bucket = S3Bucket(name: name, region: region, host: endpoint, pathStyle: endpoint != nil) else {
            throw BucketAddressError(message: "'\(name)' is not a bucket name (3-63 lowercase letters, digits, dots and hyphens)")
        }
        self.bucket = bucket
        let path = components.path.split(separator: "/").joined(separator: "/")
        prefix = path.isEmpty ? "" : path + "/"
    }
}

/// Why a store address was refused.
struct BucketAddressError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
