import Crypto
import Foundation

/// An object as a listing or a HEAD reports it.
public struct S3Object: Sendable, Equatable {
    /// Its key.
    public var key: String
    /// Its size in bytes.
    public var size: Int64
    /// Its ETag, without quotes.
    public var etag: String?
    /// Its media type (HEAD only).
    public var contentType: String?
}

/// One page of a bucket listing.
public struct S3Listing: Sendable {
    /// The objects on the page.
    public var objects: [S3Object]
    /// The "folders" under the prefix, when listing with a delimiter.
    public var commonPrefixes: [String]
    /// The token of the next page; nil on the last.
    public var nextToken: String?
}

extension S3Client {
    /// Stores the file at `path` (`size` bytes) as `key`, in one PUT or, when larger than one
    /// part, a multipart upload; `headers` (`Content-Type`, `x-amz-acl`, `x-amz-tagging`…) go on
    /// the object. With `checksums`, each body's SHA-256 is sent for the server to check. Returns
    /// the object's ETag.
    @discardableResult
    public func putFile(_ path: String, size: Int64, key: String, headers: [(name: String, value: String)] = [], checksums: Bool = false) async throws -> String {
        guard let parts = S3PartSize(objectSize: size, preferred: preferredPartSize) else {
            throw S3Error(operation: describe("PUT", key), status: nil, code: "EntityTooLarge", message: "\(size) bytes is more than S3 stores in one object (5 TiB)")
        }
        guard parts.count > 1 else {
            let hash = checksums ? try Self.sha256(of: path, offset: 0, length: size) : Self.unsignedPayload
            let response = try await send(describe("PUT", key), method: "PUT", key: key, headers: headers, body: .file(path: path, offset: 0, length: size), payloadHash: hash)
            return Self.unquoted(response.headers["ETag"] ?? "")
        }
        return try await putMultipart(path, size: size, key: key, parts: parts, headers: headers, checksums: checksums)
    }

    /// Stores `data` as `key` in one PUT; returns the ETag.
    @discardableResult
    public func putData(_ data: Data, key: String, headers: [(name: String, value: String)] = []) async throws -> String {
        let response = try await send(describe("PUT", key), method: "PUT", key: key, headers: headers, body: .data(data), payloadHash: SHA256.hex(Array(data)))
        return Self.unquoted(response.headers["ETag"] ?? "")
    }

    /// The object `key`'s size, ETag and type; nil when there is none.
    public func head(_ key: String) async throws -> S3Object? {
        do {
            let response = try await send(describe("HEAD", key), method: "HEAD", key: key)
            let size = response.headers["Content-Length"].flatMap { Int64($0) } ?? 0
            return S3Object(key: key, size: size, etag: response.headers["ETag"].map(Self.unquoted), contentType: response.headers["Content-Type"])
        } catch let error as S3Error where error.status == 404 {
            return nil
        }
    }

    /// Writes the object `key` (or its byte `range`, such as `0-99`) to the file at `path`, refusing
    /// one larger than `maxBytes`.
    public func getFile(_ key: String, to path: String, maxBytes: Int64, range: String? = nil) async throws -> HTTPResponse {
        try await send(
            describe("GET", key), method: "GET", key: key, headers: range.map { [("Range", "bytes=\($0)")] } ?? [],
            responseFile: path, maxResponseBytes: Int(clamping: maxBytes))
    }

    /// Removes the object `key` (no error when there is none).
    public func delete(_ key: String) async throws {
        _ = try await send(describe("DELETE", key), method: "DELETE", key: key)
    }

    /// One page of the objects whose keys start with `prefix`; with `delimiter` (`/`), those
    /// below a further `/` are summed up as common prefixes instead.
    public func list(prefix: String, delimiter: String? = nil, maxKeys: Int = 1000, token: String? = nil) async throws -> S3Listing {
        var pairs: [(String, String)] = [("list-type", "2"), ("max-keys", String(maxKeys)), ("prefix", prefix)]
        if let delimiter { pairs.append(("delimiter", delimiter)) }
        if let token { pairs.append(("continuation-token", token)) }
        // libcurl 7.88 signs the query as written: it is written in canonical (sorted, encoded) form.
        let response = try await send(describe("list", prefix.isEmpty ? "" : prefix + "*"), method: "GET", key: "", query: S3Encoding.canonicalQuery(pairs))
        let xml = String(decoding: response.body, as: UTF8.self)
        let objects = S3XML.blocks("Contents", in: xml).compactMap { block -> S3Object? in
            guard let key = S3XML.value("Key", in: block) else { return nil }
            return S3Object(key: key, size: S3XML.value("Size", in: block).flatMap { Int64($0) } ?? 0, etag: S3XML.value("ETag", in: block).map(Self.unquoted))
        }
        let prefixes = S3XML.blocks("CommonPrefixes", in: xml).compactMap { S3XML.value("Prefix", in: $0) }
        let truncated = S3XML.value("IsTruncated", in: xml) == "true"
        return S3Listing(objects: objects, commonPrefixes: prefixes, nextToken: truncated ? S3XML.value("NextContinuationToken", in: xml) : nil)
    }

    /// The hex SHA-256 of `length` bytes of the file at `path` from `offset`.
    static func sha256(of path: String, offset: Int64, length: Int64) throws -> String {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        do {
            return Hex.encode(try StreamingDigest.file(path, algorithm: .sha256, offset: offset, length: length, buffer: &buffer).digest)
        } catch {
            throw S3Error(operation: "read '\((path as NSString).lastPathComponent)'", status: nil, code: nil, message: error.description)
        }
    }

    /// An ETag without its quotes.
    static func unquoted(_ etag: String) -> String {
        etag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }
}
