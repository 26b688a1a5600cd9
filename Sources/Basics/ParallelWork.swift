import Foundation
import Synchronization

/// The one way blocking work (reading, hashing, decoding files) fans out over threads: from a
/// thread that may block (never from an async task), each worker takes the next index in turn.
/// Async work fans out with `forEachConcurrently` instead.
public enum ParallelWork {
    /// `count` values computed on up to `workers` threads. `worker` runs once per thread and
    /// gives the function for one index, so a thread can keep state (a read buffer) from one
    /// index to the next. `placeholder` fills the slots until their value is in.
    public static func map<Value: Sendable>(
        count: Int, workers: Int = ProcessInfo.processInfo.activeProcessorCount, placeholder: Value,
        worker: @Sendable () -> (Int) -> Value
    ) -> [Value] {
        let slots = Mutex(Array(repeating: placeholder, count: count))
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, count))) { _ in
            let one = worker()
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < count else { return }
                let value = one(index)
                slots.withLock { $0[index] = value }
            }
        }
        // Moved out, not copied: a plan's digests are a large array.
        return slots.withLock { slots in
            defer { slots = [] }
            return slots
        }
    }
}
