import Basics
import Synchronization

/// One piece of a plan's files being hashed (or, where the cache is trusted, stat'ed) on other
/// threads from the moment it is made; `results()` waits for them.
final class PieceHashing: Sendable {
    /// The index of the piece's first file among the plan's paths.
    let start: Int
    let keys: [String]
    /// What the digest cache lookup found, for recording the piece afterwards.
    let piece: DigestCacheUpdate.Piece?
    private let done = WakeSignal()
    /// The threads pieces are hashed from (a plan has two pieces in flight at most): a pool of
    /// their own, so a plan made on a thread of the shared pool never waits for one of its own.
    private static let threads = BlockingPool("hashing", threads: 4)
    private let slot = Mutex<[Result<FileDigest, HashingError>]>([])

    init(
        start: Int, keys: [String], piece: DigestCacheUpdate.Piece?, base: String, remembered: [RememberedDigest?]?, confinement: String?, workers: Int
    ) {
        self.start = start
        self.keys = keys
        self.piece = piece
        Self.threads.submit { [self] in
            let results = FileHasher.digests(paths: keys, base: base, remembered: remembered, confinement: confinement, workers: workers)
            slot.withLock { $0 = results }
            done.signal()
        }
    }

    /// The piece's results in the order of `keys`, once every file is done; call once.
    @available(*, noasync, message: "blocks its thread")
    func results() -> [Result<FileDigest, HashingError>] {
        done.wait()
        return slot.withLock { slot in
            defer { slot = [] }
            return slot
        }
    }
}
