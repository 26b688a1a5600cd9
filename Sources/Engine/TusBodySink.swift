import Crypto
import Foundation
import HTTPServer
import Synchronization
import Wire

/// Writes one PATCH (or creation-with-upload) body into an upload's file at its offset. Bytes
/// that arrived before a dropped connection are kept, unless a checksum was sent, which only
/// a complete body can satisfy. On close, the record is saved and the upload's claim dropped.
final class TusBodySink: BodySink, @unchecked Sendable {
    enum Outcome: Equatable { case pending, stored, checksumMismatch, failed }

    private let store: UploadStore
    private let lock = NSLock()
    private var record: TusUploadRecord
    private let descriptor: Int32
    private let start: Int64
    private let limit: Int64
    private var written: Int64 = 0
    private let digest: StreamingDigest?
    private let expectedDigest: Data?
    private(set) var outcome: Outcome = .pending
    /// Held while the body is written; dropped (and the upload free again) on close.
    private var claim: UploadClaim?
    let onFinished: @Sendable (TusUploadRecord) -> Void

    /// Opens the upload's file; `nil` when it cannot be opened.
    init?(
        store: UploadStore, record: TusUploadRecord, claim: UploadClaim, checksum: (ChecksumAlgorithm, Data)?,
        onFinished: @escaping @Sendable (TusUploadRecord) -> Void
    ) {
        let descriptor = open(store.dataPath(record.id), O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.store = store
        self.claim = claim
        self.record = record
        self.descriptor = descriptor
        self.start = record.offset
        self.limit = record.length.map { $0 - record.offset } ?? Int64.max
        self.expectedDigest = checksum?.1
        self.onFinished = onFinished
        digest = checksum.map { StreamingDigest($0.0.digest) }
    }

    /// The record as it stands after the body.
    var current: TusUploadRecord { lock.withLock { record } }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard written + Int64(bytes.count) <= limit else {
            throw SinkError(.text(413, "the body goes past Upload-Length"))
        }
        var offset = 0
        while offset < bytes.count {
            let count = pwrite(descriptor, base + offset, bytes.count - offset, off_t(start + written + Int64(offset)))
            if count < 0 {
                if errno == EINTR { continue }
                throw SinkError(.text(500, "the upload could not be stored"))
            }
            offset += count
        }
        digest?.update(bytes)
        written += Int64(bytes.count)
    }

    func close(complete: Bool) {
        lock.withLock {
            guard outcome == .pending else { return }
            var keep = written
            outcome = .stored
            if let expectedDigest, let digest {
                let matches = complete && Data(digest.finish()) == expectedDigest
                if !matches { keep = 0 }
                if complete && !matches { outcome = .checksumMismatch }
            }
            if keep < written { ftruncate(descriptor, off_t(start + keep)) }
            Foundation.close(descriptor)
            record.offset = start + keep
            if (try? store.save(record)) == nil { outcome = .failed }
            claim = nil
        }
        if record.isFinished { onFinished(record) }
    }
}
