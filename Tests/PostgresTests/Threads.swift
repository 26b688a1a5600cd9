import Basics
import Synchronization

/// Runs `body(index)` on `count` threads of their own, released together once all have started,
/// and returns when every one has ended (or `longest` has passed): users arriving at once.
func onThreads(_ count: Int, within longest: Duration = .seconds(120), _ body: @escaping @Sendable (Int) -> Void) {
    let gates = (0..<count).map { _ in WakeSignal() }
    let running = Drain()
    for index in 0..<count {
        running.enter()
        DedicatedThread.start("test-\(index)") {
            gates[index].wait()
            body(index)
            running.leave()
        }
    }
    gates.forEach { $0.signal() }
    running.wait(atMost: longest)
}
