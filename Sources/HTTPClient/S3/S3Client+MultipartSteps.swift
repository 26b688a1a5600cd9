import Crypto
import Foundation

/// A part of a multipart upload as S3 stored it: its number (1 to 10,000), the ETag S3 answered
/// (as it wrote it, quotes and all) and its size in bytes.
public struct S3UploadedPart: Codable, Sendable, Equatable {
    /// The part's number.
    public var number: Int
    /// The ETag the part's PUT answered.
    public var etag: String
    /// Its size in bytes.
    public var size: Int64

    /// Creates a part.
    public init(number: Int, etag: String, size: Int64) {
        self.number = number
        self.etag = etag
        self.size = size
    }
}

/// A multipart upload neither completed nor aborted, as ListMultipartUploads names it.
public struct S3MultipartUpload: Sendable, Equatable {
    /// The key it will store.
    public var key: String
    /// Its upload id.
    public var uploadID: String
}

extension S3Client {
    /// Starts a multipart upload of `key`, with `headers` (`Content-Type`, `x-amz-acl`…) for the
    /// object it makes; returns its upload id.
    public func startMultipart(key: String, headers: [(name: String, value: String)] = []) async throws -> String {
        let operation = describe("start a multipart upload of", key)
        // libcurl 7.88 signs `?uploads` wrongly: `?uploads=` is the same request, signed right.
        let started = try await send(operation, method: "POST", key: key, query: "uploads=", headers: headers)
        guard let uploadID = S3XML.value("UploadId", in: String(decoding: started.body, as: UTF8.self)), !uploadID.isEmpty else {
            throw S3Error(operation: operation, status: started.status, code: nil, message: "the answer names no UploadId")
        }
        return uploadID
    }

    /// Sends `length` bytes of the file at `path` from `offset` as part `number` of the upload
    /// `uploadID` (sending a number again replaces that part); returns the part's ETag. With
    /// `checksums`, the body's SHA-256 is sent for the server to check.
    public func putPart(
        key: String, uploadID: String, number: Int, file path: String, offset: Int64, length: Int64, checksums: Bool = false
    ) async throws -> String {
        try await putPart(key: key, uploadID: uploadID, number: number, file: path, offset: offset, length: length, checksums: checksums,
                          operation: describe("PUT part \(number) of", key))
    }

    /// `putPart`, its errors naming `operation`.
    func putPart(
        key: String, uploadID: String, number: Int, file path: String, offset: Int64, length: Int64, checksums: Bool, operation: String
    ) async throws -> String {
        guard number >= 1, Int64(number) <= S3PartSize.maximumParts else {
            throw S3Error(operation: operation, status: nil, code: "InvalidArgument", message: "part numbers go from 1 to \(S3PartSize.maximumParts)")
        }
        let hash = checksums ? try Self.sha256(of: path, offset: offset, length: length) : Self.unsignedPayload
        let response = try await send(
            operation, method: "PUT", key: key, query: "partNumber=\(number)&uploadId=" + S3Encoding.query(uploadID),
            body: .file(path: path, offset: offset, length: length), payloadHash: hash)
        guard let etag = response.headers["ETag"], !etag.isEmpty else {
            throw S3Error(operation: operation, status: response.status, code: nil, message: "the answer has no ETag")
        }
        return etag
    }

    /// Completes the upload `uploadID` of `key` from `parts` (in order); returns the object's ETag.
    public func completeMultipart(key: String, uploadID: String, parts: [S3UploadedPart]) async throws -> String {
        let xml = "<CompleteMultipartUpload>" + parts.map { part in
            "<Part><PartNumber>\(part.number)</PartNumber><ETag>\(S3XML.escape(part.etag))</ETag></Part>"
        }.joined() + "</CompleteMultipartUpload>"
        // The completion's body must say it is XML, or the signature libcurl makes does not match.
        let completed = try await send(
            describe("complete the multipart upload of", key), method: "POST", key: key, query: "uploadId=" + S3Encoding.query(uploadID),
            headers: [("Content-Type", "application/xml")], body: .data(Data(xml.utf8)), payloadHash: SHA256.hex(xml), errorInBody: true)
        return Self.unquoted(S3XML.value("ETag", in: String(decoding: completed.body, as: UTF8.self)) ?? "")
    }

    /// Aborts the upload `uploadID` of `key`: S3 drops the parts sent.
    public func abortMultipart(key: String, uploadID: String) async throws {
        _ = try await send(describe("abort the multipart upload of", key), method: "DELETE", key: key, query: "uploadId=" + S3Encoding.query(uploadID))
    }

    /// The multipart uploads in progress whose keys start with `prefix` (the first 1,000).
    public func multipartUploads(prefix: String) async throws -> [S3MultipartUpload] {
        // libcurl 7.88 signs the query as written: it is written in canonical (sorted, encoded) form.
        let response = try await send(
            describe("list the multipart uploads of", prefix + "*"), method: "GET", key: "",
            query: S3Encoding.canonicalQuery([("prefix", prefix), ("uploads", "")]))
        return S3XML.blocks("Upload", in: String(decoding: response.body, as: UTF8.self)).compactMap { block in
            guard let key = S3XML.value("Key", in: block), let id = S3XML.value("UploadId", in: block) else { return nil }
            return S3MultipartUpload(key: key, uploadID: id)
        }
    }
}
