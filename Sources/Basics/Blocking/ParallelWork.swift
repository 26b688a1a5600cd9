import Foundation
import Synchronization

/// The one way blocking work (reading, hashing, decoding files) fans out over threads: from a
/// thread that may block (never from an async task), each worker takes the next index in turn.
/// Async work fans out with `forEachConcurrently` instead.
public enum ParallelWork {
    /// The cores this process may use, read once (Foundation reads the cgroup files at each ask).
    public static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// `count` values computed on up to `workers` threads. `worker` runs once per thread and
    /// gives the function for one index, so a thread can keep state (a read buffer) from one
    /// index to the next. `placeholder` fills the slots until their value is in.
    public static func map<Value: Sendable>(
        count: Int, workers: Int = cores, placeholder: Value,
        worker: @Sendable () -> (Int) -> Value
    ) -> [Value] {
        var values = Array(repeating: placeholder, count: count)
        values.withUnsafeMutableBufferPointer { buffer in
            let slots = Slots(buffer: buffer)
            let next = Atomic<Int>(0)
            // Indices are taken a run at a time where there are many (a plan's 100,000 stats), so
            // the threads do not meet on the counter for each one.
            let run = count >= 4096 ? 32 : 1
            DispatchQueue.concurrentPerform(iterations: max(1, min(workers, count))) { _ in
                let one = worker()
                while true {
                    let first = next.wrappingAdd(run, ordering: .relaxed).oldValue
                    guard first < count else { return }
                    for index in first..<min(first + run, count) { slots.set(index, one(index)) }
                }
            }
        }
        return values
    }

    /// Runs `body` for every index below `count`, on up to `workers` threads (the calling one
    /// among them), and returns once each has run: the steps of an Assembly that run at once.
    public static func forEach(count: Int, workers: Int = cores, _ body: @Sendable (Int) -> Void) {
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, count))) { _ in
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < count else { return }
                body(index)
            }
        }
    }

    /// The result slots, each written by the one thread that took its index (and read only after
    /// every thread is done), so the writes need no lock.
    private struct Slots<Value>: @unchecked Sendable {  // distinct indices per thread; read after the join
        let buffer: UnsafeMutableBufferPointer<Value>
        func set(_ index: Int, _ value: Value) { buffer[index] = value }
    }
}
