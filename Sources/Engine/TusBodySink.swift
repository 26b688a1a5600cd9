import Crypto
import Basics
import Foundation
import HTTPServer
import Synchronization
import Wire

/// How a PATCH body's `Upload-Checksum` arrives, if it has one.
enum BodyChecksum {
    case none
    /// In the request's headers: the algorithm and the digest the body must have.
    case header(ChecksumAlgorithm, Data)
    /// In a trailer after a chunked body (`checksum-trailer`). CRC-32, the one clients compute
    /// as they send, is taken as the bytes arrive; any other algorithm from the stored bytes.
    case trailer
}

/// Writes one PATCH (or creation-with-upload) body into an upload's file at its offset. Bytes
/// that arrived before a dropped connection are kept, unless a checksum was announced, which
/// only a complete body can satisfy. On close, the record is saved and the upload's claim dropped.
final class TusBodySink: BodySink, @unchecked Sendable {  // `written` and `digest` belong to the connection thread; the rest is `state`
    enum Outcome: Equatable { case pending, stored, checksumMismatch, checksumMissing, unexpectedTrailer, failed }

    private let store: UploadStore
    /// What other threads read: the record, the outcome, the claim on the upload.
    private struct State {
        var record: TusUploadRecord
        var outcome: Outcome = .pending
        /// The algorithm of the checksum the body was verified with, if it had one.
        var verified: ChecksumAlgorithm?
        /// Held while the body is written; dropped (and the upload free again) on close.
        var claim: UploadClaim?
    }

    private let state: Mutex<State>
    private let descriptor: Int32
    private let recordID: String
    private let start: Int64
    private let limit: Int64
    private var written: Int64 = 0
    private let checksum: BodyChecksum
    private let digest: StreamingDigest?
    var outcome: Outcome { state.withLock { $0.outcome } }
    let onFinished: @Sendable (TusUploadRecord) -> Void

    /// Opens the upload's file; `nil` when it cannot be opened.
    init?(
        store: UploadStore, record: TusUploadRecord, claim: UploadClaim, checksum: BodyChecksum,
        onFinished: @escaping @Sendable (TusUploadRecord) -> Void
    ) {
        // Shared engines spool each body in a file of its own (its bytes at their offsets, those
        // before sent on already), made here and removed once they are sent on.
        let descriptor = open(store.dataPath(record.id), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (store.sharing == nil ? 0 : O_CREAT), 0o600)
        guard descriptor >= 0 else { return nil }
        self.store = store
        self.state = Mutex(State(record: record, claim: claim))
        self.recordID = record.id
        self.descriptor = descriptor
        self.start = record.offset
        self.limit = record.length.map { $0 - record.offset } ?? Int64.max
        self.checksum = checksum
        self.onFinished = onFinished
        switch checksum {
        case .none: digest = nil
        case .header(let algorithm, _): digest = StreamingDigest(algorithm.digest)
        case .trailer: digest = StreamingDigest(.crc32)
        }
    }

    /// The record as it stands after the body.
    var current: TusUploadRecord { state.withLock { $0.record } }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError) {
        guard bytes.baseAddress != nil, bytes.count > 0 else { return }
        guard written + Int64(bytes.count) <= limit else {
            throw SinkError(.text(413, "the body goes past Upload-Length"))
        }
        if SystemCall.writeAll(bytes, to: descriptor, at: start + written) != nil {
            throw SinkError(.text(500, "the upload could not be stored"))
        }
        digest?.update(bytes)
        written += Int64(bytes.count)
    }

    /// Copies `length` bytes of the open file `source` from `offset` in, as a body bringing them
    /// would (the same-machine handoff): in the kernel where it can, else read and written, 8 MiB
    /// at a time, asking `stop` before each (a client gone). The bytes copied; fewer when the
    /// file ends first, a write fails or `stop` says so.
    func copy(from source: Int32, offset: Int64, length: Int64, stop: () -> Bool) -> Int64 {
        guard digest == nil, length <= limit - written else { return 0 }
        var copied: Int64 = 0
        var inKernel = true
        var buffer: [UInt8] = []
        while copied < length, !stop() {
            let wanted = Int(min(length - copied, 8 << 20))
            if inKernel {
                switch SystemCall.copyRange(from: source, at: offset + copied, to: descriptor, at: start + written, count: wanted) {
                case .success(let count) where count > 0:
                    copied += Int64(count)
                    written += Int64(count)
                    continue
                case .success:
                    return copied  // the file ended first
                case .failure(let error) where [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP].contains(error.code):
                    // Another file system, or one that cannot: read and write instead.
                    inKernel = false
                    buffer = [UInt8](repeating: 0, count: 1 << 20)
                case .failure:
                    return copied
                }
            }
            let count = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress, min(wanted, $0.count), off_t(offset + copied)) }
            guard count > 0 else { return copied }
            let at = start + written
            guard buffer.withUnsafeBytes({ SystemCall.writeAll(UnsafeRawBufferPointer(rebasing: $0[..<count]), to: descriptor, at: at) }) == nil else {
                return copied
            }
            copied += Int64(count)
            written += Int64(count)
        }
        return copied
    }

    func attach(_ ender: RequestEnder) {
        state.withLock { $0.claim }?.attach(ender)
    }

    func close(complete: Bool, trailers: HTTPHeaders) {
        let finished: TusUploadRecord? = state.withLock { state in
            guard state.outcome == .pending else { return nil }
            var outcome = complete ? verdict(trailers: trailers) : .stored
            if complete, outcome == .stored { state.verified = verifiedAlgorithm(trailers: trailers) }
            let keep = outcome == .stored && (complete || checksum.isNone) ? written : 0
            if keep < written { ftruncate(descriptor, off_t(start + keep)) }
            // The bytes reach the disk before the record says they are there.
            if keep > 0, fdatasync(descriptor) != 0 { outcome = .failed }
            Foundation.close(descriptor)
            state.record.offset = outcome == .failed ? start : start + keep
            do { try store.save(state.record) } catch { outcome = .failed }
            state.outcome = outcome
            state.claim = nil
            return state.record.isFinished ? state.record : nil
        }
        if let finished { onFinished(finished) }
    }

    /// The algorithm a stored complete body was checked with (nil: it came without a checksum).
    private func verifiedAlgorithm(trailers: HTTPHeaders) -> ChecksumAlgorithm? {
        switch checksum {
        case .none: nil
        case .header(let algorithm, _): algorithm
        case .trailer: trailers.values(TusProtocol.checksumField).first.flatMap(TusProtocol.parseChecksum)?.0
        }
    }

    /// The algorithm of the checksum the body was verified with, once it is in.
    var verifiedChecksum: ChecksumAlgorithm? { state.withLock { $0.verified } }

    /// Whether a complete body passes its checksum.
    private func verdict(trailers: HTTPHeaders) -> Outcome {
        let trailed = trailers.values(TusProtocol.checksumField)
        switch checksum {
        case .none:
            return trailed.isEmpty ? .stored : .unexpectedTrailer
        case .header(_, let expected):
            guard trailed.isEmpty else { return .unexpectedTrailer }
            return Data(digest?.finish() ?? []) == expected ? .stored : .checksumMismatch
        case .trailer:
            guard trailed.count <= 1 else { return .unexpectedTrailer }
            guard let (algorithm, expected) = trailed.first.flatMap(TusProtocol.parseChecksum) else { return .checksumMissing }
            if algorithm == .crc32 { return Data(digest?.finish() ?? []) == expected ? .stored : .checksumMismatch }
            // Read back from the disk: a read that fails is the engine's failure, not the client's checksum.
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            do {
                let stored = try StreamingDigest.file(
                    store.dataPath(recordID), algorithm: algorithm.digest, offset: start, length: written, buffer: &buffer).digest
                return Data(stored) == expected ? .stored : .checksumMismatch
            } catch {
                return .failed
            }
        }
    }
}

private extension BodyChecksum {
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}
