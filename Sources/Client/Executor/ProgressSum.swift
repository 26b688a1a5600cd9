import Synchronization

/// The latest value per key (an Assembly, a file) and their sum, updated from concurrent tasks.
final class ProgressSum<Key: Hashable & Sendable>: Sendable {
    private let values = Mutex<[Key: Int64]>([:])
    private let base: Int64

    /// Starts at `base` (bytes already done before).
    init(base: Int64 = 0) {
        self.base = base
    }

    /// Records `value` for `key` and returns the new sum.
    func set(_ key: Key, _ value: Int64) -> Int64 {
        values.withLock { values in
            values[key] = value
            return base + values.values.reduce(0, +)
        }
    }
}
