import Basics
import Foundation

/// Writes `S3ResumableUpload`s through `client`: appends, the finish and the abort. Each call
/// returns what follows; until it has returned, S3 still holds what the state it was given says,
/// so a call cut short (an instance killed) leaves the caller's saved state to continue from, on
/// any instance. Scratch files go in `scratch`, and so does a copy of each tail this writer sent,
/// which spares the next append here reading it back.
public struct S3ResumableWriter: Sendable {
    /// The client of the bucket the uploads go to.
    public let client: S3Client
    /// The folder for scratch files and tails' copies (made when missing).
    public let scratch: String
    /// Whether each body's SHA-256 is sent for the server to check.
    public var checksums: Bool

    /// Creates a writer through `client`, with scratch files in `scratch`.
    public init(client: S3Client, scratch: String, checksums: Bool = false) {
        self.client = client
        self.scratch = scratch
        self.checksums = checksums
    }

    /// Appends `length` bytes of the file at `path` from `offset`: the tail and the new bytes are
    /// sent as every full part they make (the first one starts the multipart upload), and what is
    /// left (under one part) becomes the next tail object. Only the tail is ever sent twice.
    public func append(_ state: S3ResumableUpload, from path: String, offset: Int64, length: Int64) async throws -> S3ResumableUpload {
        try check(state, appending: length)
        guard length > 0 else { return state }
        var next = state
        await removeStaleTail(&next)
        let joined = state.tailSize + length
        let fullParts = joined / state.partSize, remainder = joined % state.partSize
        // The tail joined with the new bytes that follow it: the first part, or the next tail.
        let joinedFile: String?
        if state.tailSize > 0 {
            joinedFile = try await join(tailOf: state, with: path, offset: offset, length: min(length, state.partSize - state.tailSize))
        } else {
            joinedFile = nil
        }
        defer { if let joinedFile { FileSystem.cleanUp(joinedFile) } }
        /// Where the byte at `position` of the tail and the new bytes joined lies.
        func source(_ position: Int64) -> (file: String, offset: Int64) {
            if position == 0, let joinedFile { return (joinedFile, 0) }
            return (path, offset + position - state.tailSize)
        }
        if fullParts > 0 {
            let uploadID: String
            if let started = next.uploadID {
                uploadID = started
            } else {
                uploadID = try await client.startMultipart(key: state.key, headers: state.headerList)
                next.uploadID = uploadID
            }
            for index in 0..<fullParts {
                let number = next.parts.count + 1, (file, start) = source(index * state.partSize)
                let etag = try await client.putPart(
                    key: state.key, uploadID: uploadID, number: number, file: file, offset: start, length: state.partSize, checksums: checksums)
                next.parts.append(.init(number: number, etag: etag, size: state.partSize))
            }
            if state.tailSize > 0 { next.staleTailKey = state.tailKey }
        }
        next.tailSize = remainder
        next.tailETag = nil
        if remainder > 0 {
            let (file, start) = source(fullParts * state.partSize)
            let etag = try await putObject(next.tailKey, file: file, offset: start, length: remainder, headers: [])
            next.tailETag = etag.isEmpty ? nil : etag
            await keepCopy(ofTail: next, from: file, offset: start)
        }
        return next
    }

    /// Refuses a state no append made (a part size S3 refuses, parts of unequal sizes, a tail as
    /// large as a part) and an append past the declared length or past 10,000 parts.
    func check(_ state: S3ResumableUpload, appending length: Int64) throws {
        let operation = client.describe("append \(length) bytes to", state.key)
        let partSizes = S3PartSize.minimum...S3PartSize.maximum
        guard partSizes.contains(state.partSize), state.parts.count <= S3PartSize.maximumParts, state.parts.allSatisfy({ $0.size == state.partSize }),
              (0..<state.partSize).contains(state.tailSize), length >= 0, length <= S3PartSize.maximumObject
        else {
            throw S3Error(operation: operation, status: nil, code: nil, message: "the upload's state was not made by an append (parts of \(state.partSize) bytes, \(state.parts.count) of them, a tail of \(state.tailSize)): abort it")
        }
        let total = state.offset + length
        if let declared = state.length, total > declared {
            throw S3Error(operation: operation, status: nil, code: nil, message: "that makes \(total) bytes, more than the \(declared) the upload declared")
        }
        guard total <= state.capacity else {
            throw S3Error(operation: operation, status: nil, code: "EntityTooLarge", message: "that makes \(total) bytes, more than 10,000 parts of \(state.partSize) bytes hold: give the upload its length, or a larger maximum size, when it starts")
        }
    }

    /// Removes the tail object the state before `state` used; best effort: one left over is
    /// swept by the finish or the abort.
    func removeStaleTail(_ state: inout S3ResumableUpload) async {
        guard let stale = state.staleTailKey else { return }
        try? await client.delete(stale)  // best effort (above)
        state.staleTailKey = nil
    }
}
