import Basics
import Foundation

extension S3ResumableWriter {
    /// Makes the object from `state`: with no part sent, the tail is PUT as the object (no bytes
    /// make an empty object); otherwise it is sent as the last part and the multipart upload
    /// completed. Then the tail objects and any multipart upload a call cut short left are
    /// removed. Returns the object's ETag. Finishing again after a finish cut short answers the
    /// object it made.
    public func finish(_ state: S3ResumableUpload) async throws -> String {
        if let declared = state.length, declared != state.offset {
            throw S3Error(
                operation: client.describe("finish", state.key), status: nil, code: nil,
                message: "it holds \(state.offset) of the \(declared) bytes it declared: append the rest first")
        }
        let etag: String
        do {
            etag = try await makeObject(state)
        } catch let error as S3Error where error.status == 404 {
            // A finish cut short after S3 made the object has removed the tail, or completed the upload.
            guard let made = try await client.head(state.key), made.size == state.offset else { throw error }
            etag = made.etag ?? ""
        }
        await sweep(state)
        return etag
    }

    /// Removes what `state` holds in S3: its multipart upload, with the parts sent, and its tail
    /// objects; best effort (what stays costs storage, no more).
    public func abort(_ state: S3ResumableUpload) async {
        if let uploadID = state.uploadID {
            try? await client.abortMultipart(key: state.key, uploadID: uploadID)  // best effort (above)
        }
        await sweep(state)
    }

    /// The object made from the parts and the tail; its ETag.
    func makeObject(_ state: S3ResumableUpload) async throws -> String {
        guard let uploadID = state.uploadID else {
            if state.tailSize == 0 { return try await client.putData(Data(), key: state.key, headers: state.headerList) }
            let (tail, isScratch) = try await tailFile(state)
            defer { if isScratch { FileSystem.cleanUp(tail) } }
            return try await putObject(state.key, file: tail, offset: 0, length: state.tailSize, headers: state.headerList)
        }
        var parts = state.parts
        if state.tailSize > 0 {
            let (tail, isScratch) = try await tailFile(state)
            defer { if isScratch { FileSystem.cleanUp(tail) } }
            let number = parts.count + 1
            let etag = try await client.putPart(
                key: state.key, uploadID: uploadID, number: number, file: tail, offset: 0, length: state.tailSize, checksums: checksums)
            parts.append(.init(number: number, etag: etag, size: state.tailSize))
        }
        return try await client.completeMultipart(key: state.key, uploadID: uploadID, parts: parts)
    }

    /// Removes the upload's tail objects (`<key>.part<N>`: the state's, a stale one, any a call
    /// cut short wrote), aborts the multipart uploads of its key left in progress, and drops the
    /// local copies of its tails; best effort: what stays costs storage, no more.
    func sweep(_ state: S3ResumableUpload) async {
        let prefix = S3ResumableUpload.tailPrefix(state.key)
        let tails = (try? await client.list(prefix: prefix).objects) ?? []  // best effort (above)
        for tail in tails where tail.key.count > prefix.count && tail.key.dropFirst(prefix.count).allSatisfy(\.isASCIIDigit) {
            try? await client.delete(tail.key)  // best effort (above)
        }
        let uploads = (try? await client.multipartUploads(prefix: state.key)) ?? []  // best effort (above)
        for upload in uploads where upload.key == state.key {
            try? await client.abortMultipart(key: upload.key, uploadID: upload.uploadID)  // best effort (above)
        }
        FileSystem.cleanUp(copiesFolder(state.key))
    }
}

extension Character {
    /// Whether it is one of 0 to 9.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
