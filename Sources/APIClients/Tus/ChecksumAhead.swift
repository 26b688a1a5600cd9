import Basics
import Crypto
import Synchronization
import Wire

/// The `Upload-Checksum` of each chunk of one file, computed on another thread while the chunk
/// before it is on the wire, so that hashing and sending overlap instead of taking turns.
final class ChecksumAhead: Sendable {
    private let algorithm: ChecksumAlgorithm
    private let path: String
    private let pending = Mutex<(offset: Int64, length: Int64, task: Task<String, any Error>)?>(nil)

    init(algorithm: ChecksumAlgorithm, path: String) {
        self.algorithm = algorithm
        self.path = path
    }

    deinit { pending.withLock { $0?.task.cancel() } }

    /// The header value for `length` bytes at `offset`: the one computed ahead when it is that
    /// chunk, else computed now.
    func value(offset: Int64, length: Int64) async throws -> String {
        let ready = pending.withLock { state -> Task<String, any Error>? in
            defer { state = nil }
            guard let state, state.offset == offset, state.length == length else { return nil }
            return state.task
        }
        return try await (ready ?? start(offset: offset, length: length)).value
    }

    /// Starts computing the chunk a later `value` call will most likely ask for.
    func prepare(offset: Int64, length: Int64) {
        let task = start(offset: offset, length: length)
        let replaced = pending.withLock { state in
            defer { state = (offset, length, task) }
            return state?.task
        }
        replaced?.cancel()
    }

    private func start(offset: Int64, length: Int64) -> Task<String, any Error> {
        let (algorithm, path) = (algorithm, path)
        return Task {
            // Hashing blocks on reads: off the cooperative threads.
            try await BlockingPool.shared.run { try algorithm.headerValue(path: path, offset: offset, length: length) }
        }
    }
}
