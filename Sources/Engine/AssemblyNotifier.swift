import Basics
import Foundation
import HTTPClient
import Synchronization
import Wire

/// Announces each Assembly's end to its `notify_url`, as the service does: a POST of
/// `NotificationForm`, answered 2xx or tried again after each of `retryDelays`, then given up;
/// redirects are failures, and only the addresses the import robot may reach are reached. How it
/// went is kept in the Assembly's record (its status's `notify_*` fields); one still pending
/// when the engine stops is delivered when it starts again.
final class AssemblyNotifier: Sendable {
    struct Settings: Sendable {
        /// The waits between attempts: six attempts over about a minute, as the service makes.
        var retryDelays: [Duration] = [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32)]
        /// Which addresses a notify URL may reach.
        var policy = AddressPolicy()
        /// How long one attempt may take.
        var timeout: Duration = .seconds(30)
        /// The clock waits between attempts are waited on.
        var clock: any MonotonicClock = SystemClock()

        /// An attempt after each of `retryDelays`, then given up.
        var retryPolicy: RetryPolicy { RetryPolicy(attempts: retryDelays.count + 1, backoff: Backoff(.listed(retryDelays))) }
    }

    private let store: any AssemblyRecords
    private let secret: String?
    private let settings: Settings
    private let status: @Sendable (AssemblyRecord) -> AssemblyStatusDocument
    /// Hears of every attempt; when nil, `warn` hears of deliveries given up.
    private let log: (@Sendable (String) -> Void)?
    private let warn: @Sendable (String) -> Void
    private let client = HTTPClient()
    /// Who delivers what, when several engines share their state; nil: this engine delivers all it has.
    private let leases: (any DeliveryLeases)?
    /// The deliveries under way, and whether each is waiting to try again (not sending).
    private let deliveries = Mutex<(tasks: [String: Task<Void, Never>], waiting: Set<String>, stopping: Bool)>(([:], [], false))
    /// The deliveries under way, for `stop` to wait on.
    private let inFlight = Drain()

    /// `status` makes the document sent; `log` hears of every attempt, else `warn` of those given up.
    init(store: any AssemblyRecords, secret: String?, settings: Settings, status: @escaping @Sendable (AssemblyRecord) -> AssemblyStatusDocument,
         log: (@Sendable (String) -> Void)?, warn: @escaping @Sendable (String) -> Void, leases: (any DeliveryLeases)? = nil) {
        (self.store, self.secret, self.settings, self.status, self.log, self.warn, self.leases) = (store, secret, settings, status, log, warn, leases)
    }

    /// `record` just ended (its announcement pending since the end was stored), or its
    /// announcement is asked for again: it starts, when it has a notify URL and none is under way.
    func ended(_ record: AssemblyRecord) {
        guard record.notifyURL != nil else { return }
        if record.notification?.state != .pending { store.update(record.id) { $0.notification = AssemblyNotification(state: .pending) } }
        deliver(record.id)
    }

    /// Delivers the announcements a stopped engine left pending (with shared state: those no
    /// engine is delivering, its lease run out).
    func resumePending() {
        if let leases { return leases.orphaned().forEach(deliver) }
        for record in store.live where record.isTerminal && record.notification?.state == .pending { deliver(record.id) }
    }

    /// Waits up to `patience` for the attempts being sent; deliveries waiting to try again, and
    /// those cut off, stay pending for the next start.
    func stop(waitingAtMost patience: Duration) {
        let running = deliveries.withLock { state in
            state.stopping = true
            for id in state.waiting { state.tasks[id]?.cancel() }
            return Array(state.tasks.values)
        }
        guard !running.isEmpty else { return }
        if !inFlight.wait(atMost: patience) {
            for task in running { task.cancel() }
        }
    }

    private func deliver(_ id: String) {
        guard deliveries.withLock({ $0.tasks[id] == nil && !$0.stopping }) else { return }
        // Another engine delivers it (it ended there, or that engine took it up first).
        if let leases, !leases.take(id) { return }
        deliveries.withLock { state in
            guard state.tasks[id] == nil, !state.stopping else { return }
            inFlight.enter()
            state.tasks[id] = Task.detached { [self] in
                await attempts(id)
                deliveries.withLock { _ = $0.tasks.removeValue(forKey: id) }
                if let leases { _ = try? await BlockingPool.shared.run { leases.release(id) } }  // release never throws: only run's signature does
                inFlight.leave()
            }
        }
    }

    /// Waits `delay` before the next attempt; false when the engine stops meanwhile.
    private func wait(_ delay: Duration, for id: String) async -> Bool {
        guard deliveries.withLock({ $0.stopping ? false : $0.waiting.insert(id).inserted }) else { return false }
        defer { deliveries.withLock { _ = $0.waiting.remove(id) } }
        do { try await settings.clock.sleep(for: delay) } catch { return false }
        return true
    }

    private func attempts(_ id: String) async {
        guard let record = store.get(id), let url = record.notifyURL else { return }
        let form = NotificationForm(status: status(record), params: record.params, secret: secret)
        let shown = RemoteFetcher.shown(url)
        // A delivery a restart cut short goes on where it was: six attempts in all, not six more.
        let start = record.notification?.start ?? Date()
        let policy = settings.retryPolicy
        let made = min(record.notification?.attempts ?? 0, policy.attempts - 1)
        for attempt in made..<policy.attempts {
            // Stopping: stays pending.
            if attempt > 0, let delay = policy.wait(afterAttempt: attempt), await !wait(delay, for: id) { return }
            // The lease is renewed before each attempt; one lost (this engine was paused past it) leaves the rest to the engine that took it.
            if attempt > made, let leases, !((try? await BlockingPool.shared.run { leases.take(id) }) ?? false) { return }  // take never throws: only run's signature does
            let outcome = await post(form, to: url)
            if Task.isCancelled { return }
            let delivered = outcome.code.map { (200..<300).contains($0) } ?? false
            // An address the engine may not reach stays so: no point asking again.
            let last = delivered || outcome.refused || attempt + 1 == policy.attempts
            store.update(id) { record in
                var notification = AssemblyNotification(state: delivered ? .successful : last ? .failed : .pending, start: start)
                (notification.attempts, notification.responseCode, notification.responseData) = (attempt + 1, outcome.code, outcome.data)
                (notification.duration, notification.error) = (Date().timeIntervalSince(start), outcome.error)
                record.notification = notification
            }
            let result = outcome.code.map { "answered \($0)" } ?? (outcome.error ?? "failed")
            let line = "Assembly \(id) notified \(shown): \(result) (attempt \(attempt + 1) of \(policy.attempts))"
                + (delivered ? "" : last ? "; given up" : "; trying again")
            if let log { log(line) } else if last, !delivered { warn(line) }
            if last { return }
        }
    }

    /// One attempt: the status the notify URL answered and the start of its body, or why there was no answer.
    private func post(_ form: NotificationForm, to url: String) async -> (code: Int?, data: String?, error: String?, refused: Bool) {
        let request = HTTPRequest(
            method: "POST", url: url, headers: [("Content-Type", form.contentType), ("User-Agent", ClientIdentity.transloaditClient)],
            body: .data(form.body), timeouts: HTTPTimeouts(connect: .seconds(10), total: settings.timeout),
            maxResponseBytes: 1 << 20, addressPolicy: settings.policy)
        do {
            let response = try await client.send(request)
            let data = String(decoding: response.body.prefix(AssemblyNotification.keptResponseBytes), as: UTF8.self)
            return (response.status, data, (200..<300).contains(response.status) ? nil : "answered \(response.status)", false)
        } catch let error as HTTPError {
            if case .addressRefused = error.kind {
                return (nil, nil, error.message + " (the engine notifies public addresses only; pipeline serve --allow-loopback-import adds this machine's)", true)
            }
            return (nil, nil, error.message, false)
        } catch {
            return (nil, nil, "\(error)", false)
        }
    }
}
