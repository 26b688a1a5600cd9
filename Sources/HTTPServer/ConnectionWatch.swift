internal import CMicroHTTPD
import Basics
import Foundation
import Synchronization

/// Watches every open connection so that no client can hold the server: a deadline for each
/// request head (trickled header bytes reset libmicrohttpd's idle timeout), a minimum rate for
/// request bodies (a byte every 20 s resets it too), and caps per client address and overall that
/// close idle keep-alive connections first. A connection is ended by shutting its socket down,
/// which ends its thread's wait at once; a descriptor is only touched while its connection is open.
final class ConnectionWatch: Sendable {
    /// What the watch enforces.
    struct Limits: Sendable {
        /// Seconds for a connection's first request head.
        var headerSeconds: Double
        /// Seconds an idle keep-alive connection waits for its next request head.
        var idleSeconds: Double
        /// Connections one client address keeps; nil when every connection comes from a trusted
        /// proxy (requests are then counted per forwarded client instead).
        var perAddress: Int?
        /// Connections in all before idle ones are closed to make room.
        var total: Int
        /// Requests in flight one forwarded client may have, behind a trusted proxy.
        var perForwardedClient: Int
        /// A request body has this long before its rate counts...
        var bodyGrace: Double
        /// ... and then must have arrived at this many bytes a second on average (a second more
        /// for every `bodyRate` bytes, as Apache's mod_reqtimeout `MinRate` does).
        var bodyRate: Double
    }

    private enum Phase {
        /// Waiting for its first head; `order` counts connections as they start (the oldest is the lowest).
        case awaitingHead(deadline: ContinuousClock.Instant, order: UInt64)
        case idle(since: ContinuousClock.Instant)
        case request
        case body(started: ContinuousClock.Instant, bytes: Int64)
        case closing
    }

    private struct Connection {
        var descriptor: Int32
        var address: String
        var phase: Phase
    }

    private struct State {
        var connections: [UInt: Connection] = [:]
        var forwarded: [String: Int] = [:]
        var started: UInt64 = 0
    }

    private let limits: Limits
    private let clock: any MonotonicClock
    private let state = Mutex(State())
    /// Looks for connections past their time, every quarter of the head deadline (on `clock`).
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    init(_ limits: Limits, clock: any MonotonicClock) {
        var limits = limits
        limits.idleSeconds = max(limits.headerSeconds, limits.idleSeconds)
        self.limits = limits
        self.clock = clock
        let interval = Duration.milliseconds(Int(max(0.05, min(1, limits.headerSeconds / 4)) * 1000))
        let task = Task.detached { [weak self] in
            while true {
                do { try await clock.sleep(for: interval) } catch { return }  // stopped
                guard let watch = self else { return }
                watch.closeLate()
            }
        }
        ticker.withLock { $0 = task }
    }

    deinit { stop() }

    func stop() {
        ticker.withLock { $0?.cancel() }
    }

    /// A new connection: it gets a deadline for its first head. Past a cap, a connection is closed
    /// to make room (of its address, then of any): the longest idle keep-alive one, else the oldest
    /// still waiting for its first head, else the slowest request body (above the minimum rate,
    /// but the slowest: a tus upload cut off resumes), so neither half-sent heads nor trickled
    /// bodies can lock an address out; with none of these at its address, the new one is.
    func connectionStarted(_ connection: OpaquePointer?) {
        guard let connection else { return }
        let descriptor = pipeline_mhd_connection_fd(connection)
        guard descriptor >= 0 else { return }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let known = pipeline_mhd_connection_address(connection, &text, socklen_t(text.count)) == 0
        let address = known ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        let key = Self.key(connection)
        let now = clock.now
        state.withLock { state in
            state.started += 1
            state.connections[key] = Connection(
                descriptor: descriptor, address: address, phase: .awaitingHead(deadline: now + .seconds(limits.headerSeconds), order: state.started))
            if let perAddress = limits.perAddress, Self.open(state, where: { $0.address == address }) > perAddress {
                close(Self.leastUseful(state, except: key, now: now, where: { $0.address == address }) ?? key, &state)
            }
            if Self.open(state, where: { _ in true }) > limits.total, let victim = Self.leastUseful(state, except: key, now: now, where: { _ in true }) {
                close(victim, &state)
            }
        }
    }

    /// The request's head is in: no deadline until the body, if it has one, or the connection is idle again.
    func headersArrived(_ connection: OpaquePointer?, hasBody: Bool) {
        let now = clock.now
        update(connection) { $0 = hasBody ? .body(started: now, bytes: 0) : .request }
    }

    /// `count` more bytes of the request body arrived.
    func bodyReceived(_ connection: OpaquePointer?, count: Int) {
        update(connection) { phase in
            if case .body(let started, let bytes) = phase { phase = .body(started: started, bytes: bytes + Int64(count)) }
        }
    }

    /// The whole body is in: the handler answers, at its own pace.
    func bodyEnded(_ connection: OpaquePointer?) {
        update(connection) { phase in
            if case .body = phase { phase = .request }
        }
    }

    /// A keep-alive connection waits for its next request head from now on.
    func requestEnded(_ connection: OpaquePointer?) {
        let now = clock.now
        update(connection) { $0 = .idle(since: now) }
    }

    func connectionClosed(_ connection: OpaquePointer?) {
        guard let connection else { return }
        _ = state.withLock { $0.connections.removeValue(forKey: Self.key(connection)) }
    }

    /// Whether a request from `client` (as a trusted proxy forwarded it) may start: each forwarded
    /// client has at most `perForwardedClient` in flight. A started one is `release`d when it ends.
    func admit(forwardedClient client: String) -> Bool {
        state.withLock { state in
            guard state.forwarded[client, default: 0] < limits.perForwardedClient else { return false }
            state.forwarded[client, default: 0] += 1
            return true
        }
    }

    /// A request `admit` let start has ended.
    func release(forwardedClient client: String) {
        state.withLock { state in
            let left = state.forwarded[client, default: 1] - 1
            state.forwarded[client] = left > 0 ? left : nil
        }
    }

    /// Shuts `connection`'s socket down now, if it is still open.
    func shutDown(_ key: UInt, descriptor: Int32) {
        state.withLock { state in
            guard state.connections[key] != nil else { return }
            shutdown(descriptor, Int32(SHUT_RDWR))
        }
    }

    /// The key and descriptor of `connection`, to shut it down later from another thread.
    func handle(_ connection: OpaquePointer?) -> (key: UInt, descriptor: Int32)? {
        guard let connection else { return nil }
        let descriptor = pipeline_mhd_connection_fd(connection)
        return descriptor >= 0 ? (Self.key(connection), descriptor) : nil
    }

    private func update(_ connection: OpaquePointer?, _ change: (inout Phase) -> Void) {
        guard let connection else { return }
        state.withLock { state in
            guard var entry = state.connections[Self.key(connection)] else { return }
            if case .closing = entry.phase { return }
            change(&entry.phase)
            state.connections[Self.key(connection)] = entry
        }
    }

    private func closeLate() {
        let now = clock.now
        state.withLock { state in
            for (key, connection) in state.connections {
                switch connection.phase {
                case .awaitingHead(let deadline, _) where now > deadline: close(key, &state)
                case .idle(let since) where now > since + .seconds(limits.idleSeconds): close(key, &state)
                case .body(let started, let bytes) where now > started + .seconds(limits.bodyGrace + Double(bytes) / limits.bodyRate):
                    close(key, &state)
                default: break
                }
            }
        }
    }

    private func close(_ key: UInt, _ state: inout State) {
        guard let connection = state.connections[key] else { return }
        shutdown(connection.descriptor, Int32(SHUT_RDWR))
        state.connections[key]?.phase = .closing
    }

    private static func open(_ state: State, where matches: (Connection) -> Bool) -> Int {
        state.connections.values.filter { connection in
            if case .closing = connection.phase { return false }
            return matches(connection)
        }.count
    }

    /// The connection to close first to make room: the longest idle, else the oldest waiting for
    /// its first head, else the body arriving slowest (one under way for a second at least).
    private static func leastUseful(_ state: State, except new: UInt, now: ContinuousClock.Instant, where matches: (Connection) -> Bool) -> UInt? {
        var idle: (UInt, ContinuousClock.Instant)?
        var waiting: (UInt, UInt64)?
        var slowest: (UInt, Double)?
        for (key, connection) in state.connections where key != new && matches(connection) {
            switch connection.phase {
            case .idle(let since) where idle.map({ since < $0.1 }) ?? true: idle = (key, since)
            case .awaitingHead(_, let order) where waiting.map({ order < $0.1 }) ?? true: waiting = (key, order)
            case .body(let started, let bytes) where now - started >= .seconds(1):
                let rate = Double(bytes) / (now - started).inSeconds
                if slowest.map({ rate < $0.1 }) ?? true { slowest = (key, rate) }
            default: break
            }
        }
        return (idle?.0 ?? waiting?.0) ?? slowest?.0
    }

    /// The connections open now from `address` (every address when nil), by phase.
    func counts(from address: String?) -> ConnectionCounts {
        state.withLock { state in
            var counts = ConnectionCounts()
            for connection in state.connections.values where address == nil || connection.address == address {
                switch connection.phase {
                case .awaitingHead: counts.awaitingHead += 1
                case .idle: counts.idle += 1
                case .request: counts.answering += 1
                case .body(_, let bytes):
                    counts.receivingBody += 1
                    counts.bodyBytes += bytes
                case .closing: break
                }
            }
            return counts
        }
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))) }
}
