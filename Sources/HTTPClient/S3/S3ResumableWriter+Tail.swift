import Basics
import Crypto
import Foundation

extension S3ResumableWriter {
    /// A new scratch file holding `state`'s tail followed by `length` bytes of the file at `path` from `offset`.
    func join(tailOf state: S3ResumableUpload, with path: String, offset: Int64, length: Int64) async throws -> String {
        let (tail, isScratch) = try await tailFile(state)
        let joined = try isScratch ? tail : makeScratchPath()
        do {
            try await BlockingPool.shared.run {
                if !isScratch { try S3ScratchFile.append(tail, offset: 0, length: state.tailSize, to: joined) }
                try S3ScratchFile.append(path, offset: offset, length: length, to: joined)
            }
        } catch {
            FileSystem.cleanUp(joined)
            throw S3Error(operation: client.describe("append to", state.key), status: nil, code: nil, message: "the scratch file: \(error)")
        }
        return joined
    }

    /// A file holding exactly `state`'s tail: the copy this writer kept, or a scratch file read
    /// from the tail object (`isScratch`: the caller removes it).
    func tailFile(_ state: S3ResumableUpload) async throws -> (path: String, isScratch: Bool) {
        if let copy = copyPath(ofTail: state), S3ScratchFile.size(of: copy) == state.tailSize { return (copy, false) }
        let file = try makeScratchPath()
        do {
            // Only the state's bytes: an append cut short may have written more after them.
            _ = try await client.getFile(state.tailKey, to: file, maxBytes: state.partSize, range: "0-\(state.tailSize - 1)")
            let size = S3ScratchFile.size(of: file) ?? 0
            guard size >= state.tailSize else {
                throw S3Error(
                    operation: client.describe("GET", state.tailKey), status: nil, code: nil,
                    message: "the tail holds \(size) bytes, not the \(state.tailSize) the upload's state says: that state is not the last one saved")
            }
            if size > state.tailSize { try S3ScratchFile.truncate(file, to: state.tailSize) }
            return (file, true)
        } catch {
            FileSystem.cleanUp(file)
            throw error
        }
    }

    /// Keeps a copy of `state`'s tail (`state.tailSize` bytes of `file` from `offset`) for the next
    /// append here, in place of the copies of the upload's earlier tails; best effort: without it
    /// the next append reads the tail object.
    func keepCopy(ofTail state: S3ResumableUpload, from file: String, offset: Int64) async {
        guard let copy = copyPath(ofTail: state) else { return }
        let folder = (copy as NSString).deletingLastPathComponent, written = copy + ".new"
        do {
            try await BlockingPool.shared.run {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try S3ScratchFile.append(file, offset: offset, length: state.tailSize, to: written)
                guard rename(written, copy) == 0 else { throw FileError(path: copy, operation: "rename", code: errno) }
            }
        } catch {
            FileSystem.cleanUp(written)  // the copy is a saving, not a need (above)
            return
        }
        for name in FileSystem.namesOrNone(in: folder) where folder + "/" + name != copy { FileSystem.cleanUp(folder + "/" + name) }
    }

    /// Where this writer keeps its copy of `state`'s tail: named by the tail object and its ETag,
    /// so a copy of another version is never taken for it; nil when S3 gave no ETag.
    func copyPath(ofTail state: S3ResumableUpload) -> String? {
        guard let etag = state.tailETag else { return nil }
        return copiesFolder(state.key) + "/" + String(SHA256.hex(state.tailKey + "\n" + etag).prefix(32))
    }

    /// The folder of the copies of the upload of `key`'s tails.
    func copiesFolder(_ key: String) -> String { scratch + "/tails-" + String(SHA256.hex(key).prefix(32)) }

    /// A fresh path for a scratch file, the scratch folder made when missing.
    func makeScratchPath() throws -> String {
        do {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        } catch {
            throw S3Error(operation: "make the scratch folder '\(scratch)'", status: nil, code: nil, message: error.localizedDescription)
        }
        return scratch + "/scratch-" + RandomID.hex32()
    }

    /// Stores `length` bytes of `file` from `offset` as `key` in one PUT; returns its ETag.
    func putObject(_ key: String, file: String, offset: Int64, length: Int64, headers: [(name: String, value: String)]) async throws -> String {
        let hash = checksums ? try S3Client.sha256(of: file, offset: offset, length: length) : S3Client.unsignedPayload
        let response = try await client.send(
            client.describe("PUT", key), method: "PUT", key: key, headers: headers, body: .file(path: file, offset: offset, length: length), payloadHash: hash)
        return S3Client.unquoted(response.headers["ETag"] ?? "")
    }
}
