import Crypto
import Foundation

extension S3Client {
    /// A multipart upload of the file at `path`: started, sent part by part (each retried on its
    /// own), completed; aborted when any step fails, so no parts are left behind to pay for.
    func putMultipart(
        _ path: String, size: Int64, key: String, parts: S3PartSize, headers: [(name: String, value: String)], checksums: Bool
    ) async throws -> String {
        // libcurl 7.88 signs `?uploads` wrongly: `?uploads=` is the same request, signed right.
        let started = try await send(describe("start a multipart upload of", key), method: "POST", key: key, query: "uploads=", headers: headers)
        guard let uploadID = S3XML.value("UploadId", in: String(decoding: started.body, as: UTF8.self)), !uploadID.isEmpty else {
            throw S3Error(operation: describe("start a multipart upload of", key), status: started.status, code: nil, message: "the answer names no UploadId")
        }
        let upload = "uploadId=" + S3Encoding.query(uploadID)
        do {
            var etags: [String] = []
            for number in 1...parts.count {
                try Task.checkCancellation()
                let (offset, length) = parts.range(ofPart: number, objectSize: size)
                let hash = checksums ? try Self.sha256(of: path, offset: offset, length: length) : Self.unsignedPayload
                let operation = describe("PUT part \(number) of \(parts.count) of", key)
                let response = try await send(
                    operation, method: "PUT", key: key, query: "partNumber=\(number)&" + upload,
                    body: .file(path: path, offset: offset, length: length), payloadHash: hash)
                guard let etag = response.headers["ETag"], !etag.isEmpty else {
                    throw S3Error(operation: operation, status: response.status, code: nil, message: "the answer has no ETag")
                }
                etags.append(etag)
            }
            let xml = "<CompleteMultipartUpload>" + etags.enumerated().map { index, etag in
                "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(S3XML.escape(etag))</ETag></Part>"
            }.joined() + "</CompleteMultipartUpload>"
            // The completion's body must say it is XML, or the signature libcurl makes does not match.
            let completed = try await send(
                describe("complete the multipart upload of", key), method: "POST", key: key, query: upload,
                headers: [("Content-Type", "application/xml")], body: .data(Data(xml.utf8)), payloadHash: SHA256.hex(xml), errorInBody: true)
            return Self.unquoted(S3XML.value("ETag", in: String(decoding: completed.body, as: UTF8.self)) ?? "")
        } catch {
            // Best effort, even when the task was canceled: the parts sent cost storage until aborted.
            let client = self
            _ = await Task.detached {
                try? await client.send(client.describe("abort the multipart upload of", key), method: "DELETE", key: key, query: upload)  // best effort (above)
            }.value
            throw error
        }
    }
}
