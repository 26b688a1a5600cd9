internal import CMicroHTTPD
import Foundation
import Synchronization

/// Gives every connection a deadline for sending its next request head, so clients that trickle
/// header bytes (each byte resets libmicrohttpd's idle timeout) cannot hold connections forever.
/// A late connection's socket is shut down, which ends its thread's wait at once; the descriptor
/// is only touched while the connection is known to be open.
final class HeaderDeadline: Sendable {
    private struct Waiting {
        var descriptor: Int32
        var deadline: ContinuousClock.Instant
    }

    private let seconds: Double
    private let idleSeconds: Double
    /// Open connections, and the deadline of those waiting for a request head.
    private let state = Mutex((open: Set<UInt>(), waiting: [UInt: Waiting]()))
    /// Dispatch sources are safe to use from any thread.
    private nonisolated(unsafe) let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))

    /// `seconds` for the first request head of a connection; `idleSeconds` for each later one,
    /// so a pooled keep-alive connection lives as long as the idle timeout allows.
    init(seconds: Double, idleSeconds: Double) {
        self.seconds = seconds
        self.idleSeconds = max(seconds, idleSeconds)
        let interval = max(0.05, min(1, seconds / 4))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.closeLate() }
        timer.resume()
    }

    deinit { timer.cancel() }

    func stop() {
        timer.cancel()
    }

    func connectionStarted(_ connection: OpaquePointer?) {
        guard let connection else { return }
        _ = state.withLock { $0.open.insert(Self.key(connection)) }
        wait(for: connection, seconds: seconds)
    }

    /// The request's head is in: no deadline until the connection is idle again.
    func headersArrived(_ connection: OpaquePointer?) {
        guard let connection else { return }
        _ = state.withLock { $0.waiting.removeValue(forKey: Self.key(connection)) }
    }

    /// A keep-alive connection waits for its next request head from now on.
    func requestEnded(_ connection: OpaquePointer?) {
        wait(for: connection, seconds: idleSeconds)
    }

    private func wait(for connection: OpaquePointer?, seconds: Double) {
        guard let connection else { return }
        let descriptor = pipeline_mhd_connection_fd(connection)
        guard descriptor >= 0 else { return }
        // Only a connection still open gets a deadline: its descriptor cannot have been reused.
        state.withLock { state in
            guard state.open.contains(Self.key(connection)) else { return }
            state.waiting[Self.key(connection)] = Waiting(descriptor: descriptor, deadline: .now + .seconds(seconds))
        }
    }

    func connectionClosed(_ connection: OpaquePointer?) {
        guard let connection else { return }
        state.withLock { state in
            state.open.remove(Self.key(connection))
            state.waiting.removeValue(forKey: Self.key(connection))
        }
    }

    /// Shuts `connection`'s socket down now, if it is still open.
    func shutDown(_ key: UInt, descriptor: Int32) {
        state.withLock { state in
            guard state.open.contains(key) else { return }
            shutdown(descriptor, Int32(SHUT_RDWR))
        }
    }

    /// The key and descriptor of `connection`, to shut it down later from another thread.
    func handle(_ connection: OpaquePointer?) -> (key: UInt, descriptor: Int32)? {
        guard let connection else { return nil }
        let descriptor = pipeline_mhd_connection_fd(connection)
        return descriptor >= 0 ? (Self.key(connection), descriptor) : nil
    }

    private func closeLate() {
        let now = ContinuousClock.now
        state.withLock { state in
            for (key, entry) in state.waiting where now > entry.deadline {
                shutdown(entry.descriptor, Int32(SHUT_RDWR))
                state.waiting.removeValue(forKey: key)
            }
        }
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))) }
}
