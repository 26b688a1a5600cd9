import Basics
import Synchronization

/// Status requests held until their Assembly moves on (see `StatusWait`). Each waits on its own
/// signal, given when its Assembly's phase changes or the engine stops: a change wakes only the
/// requests about that Assembly, and stopping waits for the last of them to leave (its answer
/// sent), not a poll.
final class HeldRequests: Sendable {
    /// One held request.
    struct Ticket: Sendable {
        fileprivate let number: Int
        fileprivate let assembly: String
        fileprivate let signal: WakeSignal
    }

    private struct State {
        var stopping = false
        var next = 0
        var waiting: [String: [Int: WakeSignal]] = [:]
        var count = 0
        /// Requests held, or let go with an answer not yet sent.
        var unsent = 0
        /// Signalled when the last answer is sent once the engine stops.
        var drained: WakeSignal?
    }

    private let state = Mutex(State())
    /// Past this many, requests are answered at once, so held ones never take the connections
    /// that uploads and new Assemblies need.
    let most: Int

    init(most: Int) { self.most = most }

    /// Requests held now.
    var count: Int { state.withLock { $0.count } }

    /// Whether the engine is stopping (held requests are then answered at once).
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Holds a request about `assembly`; nil when `most` are held already or the engine stops.
    func hold(_ assembly: String) -> Ticket? {
        state.withLock { state in
            guard !state.stopping, state.count < most else { return nil }
            state.next += 1
            state.count += 1
            state.unsent += 1
            let ticket = Ticket(number: state.next, assembly: assembly, signal: WakeSignal())
            state.waiting[assembly, default: [:]][ticket.number] = ticket.signal
            return ticket
        }
    }

    /// Waits for `ticket`'s signal for at most `longest`; true when signalled.
    @available(*, noasync, message: "blocks its thread")
    func wait(_ ticket: Ticket, for longest: Duration) -> Bool {
        ticket.signal.wait(atMost: longest)
    }

    /// The request is held no longer; its answer is on its way (`sent` says when it has left).
    func release(_ ticket: Ticket) {
        state.withLock { state in
            state.waiting[ticket.assembly]?[ticket.number] = nil
            if state.waiting[ticket.assembly]?.isEmpty == true { state.waiting[ticket.assembly] = nil }
            state.count -= 1
        }
    }

    /// The answer of a request let go has been sent (or its client is gone).
    func sent() {
        state.withLock { state in
            state.unsent -= 1
            if state.unsent == 0 { state.drained?.signal() }
        }
    }

    /// `assembly`'s phase changed: its held requests look again.
    func moved(_ assembly: String) {
        state.withLock { state in state.waiting[assembly]?.values.forEach { $0.signal() } }
    }

    /// Any Assembly may have moved (what was told of it was lost): every held request looks again.
    func movedAll() {
        state.withLock { state in state.waiting.values.forEach { $0.values.forEach { $0.signal() } } }
    }

    /// Answers every held request now, and waits until their answers are sent (`longest` at most).
    @available(*, noasync, message: "blocks its thread")
    func stop(waitingAtMost longest: Duration) {
        let drained = state.withLock { state -> WakeSignal? in
            state.stopping = true
            for signals in state.waiting.values { signals.values.forEach { $0.signal() } }
            guard state.unsent > 0 else { return nil }
            state.drained = WakeSignal()
            return state.drained
        }
        _ = drained?.wait(atMost: longest)
    }

    /// Holds a request for `id` (read by `read`) until its phase is no longer `phase`, `deadline`
    /// has passed, the engine stops or `clientGone` says nobody waits; at once when `most` are
    /// held already. A stop waits for its answer until `whenAnswered` runs what it is given.
    @available(*, noasync, message: "blocks its thread")
    func waitForChange(
        of id: String, from phase: AssemblyPhase, until deadline: ContinuousClock.Instant, clock: any MonotonicClock, clientGone: () -> Bool,
        whenAnswered: (@escaping @Sendable () -> Void) -> Void, read: (String) -> AssemblyRecord?
    ) -> AssemblyRecord? {
        guard let ticket = hold(id) else { return read(id) }
        defer {
            release(ticket)
            whenAnswered { [self] in sent() }
        }
        while true {
            guard let record = read(id) else { return nil }
            let now = clock.now
            if record.phase != phase || isStopping || now >= deadline || clientGone() { return record }
            // In slices, to notice a client that went away (nothing tells of it), and a clock moved on.
            _ = wait(ticket, for: min(deadline - now, .milliseconds(250)))
        }
    }
}
