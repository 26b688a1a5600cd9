import Foundation

extension S3Client {
    /// A multipart upload of the file at `path`: started, sent part by part (each retried on its
    /// own), completed; aborted when any step fails, so no parts are left behind to pay for.
    func putMultipart(
        _ path: String, size: Int64, key: String, parts: S3PartSize, headers: [(name: String, value: String)], checksums: Bool
    ) async throws -> String {
        let uploadID = try await startMultipart(key: key, headers: headers)
        do {
            var sent: [S3UploadedPart] = []
            for number in 1...parts.count {
                try Task.checkCancellation()
                let (offset, length) = parts.range(ofPart: number, objectSize: size)
                let etag = try await putPart(
                    key: key, uploadID: uploadID, number: Int(number), file: path, offset: offset, length: length, checksums: checksums,
                    operation: describe("PUT part \(number) of \(parts.count) of", key))
                sent.append(S3UploadedPart(number: Int(number), etag: etag, size: length))
            }
            return try await completeMultipart(key: key, uploadID: uploadID, parts: sent)
        } catch {
            // Best effort, even when the task was canceled: the parts sent cost storage until aborted.
            let client = self
            _ = await Task.detached {
                try? await client.abortMultipart(key: key, uploadID: uploadID)  // best effort (above)
            }.value
            throw error
        }
    }
}
