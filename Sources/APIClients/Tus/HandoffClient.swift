import Basics
import Foundation
import HTTPClient
import Synchronization
import Wire

/// The client's end of the same-machine handoff (`LocalHandoff`): files go to the local engine as
/// open descriptors over its Unix socket, in place of a creating POST's or a PATCH's bytes. Taken
/// only for an endpoint on a loopback address, from a socket of this user that greets with the
/// token the endpoint's `OPTIONS` gave; any failure to reach it turns it off for the rest of the
/// run, and the bytes go over HTTP. One client serves a run's batches (`TusCapabilityCache`), so
/// its connections are greeted once, not once per Assembly.
final class HandoffClient: Sendable {
    private let offer: LocalHandoff.Offer
    /// Connections greeted and not in use, for the next file, with when each fell idle.
    private let idle = Mutex<[(connection: MessageSocket, since: ContinuousClock.Instant)]>([])
    /// How long an idle connection is kept: well within the minute of silence after which the
    /// engine closes it, so a request is never sent on a connection the engine is closing.
    private let keepIdle: Duration
    /// Whether a sweep of idle connections is scheduled.
    private let sweeping = Atomic(false)
    private let broken = Atomic(false)
    /// The threads requests wait for the engine on, for every client of the process: a request
    /// blocks until the engine has copied its file, so they do not take the shared pool's threads.
    private static let threads = BlockingPool("handoff-send", threads: 64)

    /// A client for `offer`, when `endpoint` is on this machine (127.0.0.1, ::1, localhost).
    init?(offer: LocalHandoff.Offer?, endpoint: String, keepIdle: Duration = .seconds(30)) {
        guard let offer, SecureURL.isLoopback(endpoint) else { return nil }
        self.offer = offer
        self.keepIdle = keepIdle
    }

    /// Whether files still go this way.
    var isUsable: Bool { !broken.load(ordering: .relaxed) }

    /// Creates an upload of the whole file at `path` (`length` bytes) with `metadata` below
    /// `endpoint`, its bytes handed over: its URL and the bytes the engine holds. `nil` when the
    /// handoff cannot be used; a refusal is the error a creating POST would have had.
    func create(at endpoint: String, path: String, length: Int64, metadata: [String: String]) async throws(TusError) -> (url: String, offset: Int64)? {
        let request = LocalHandoff.Create(length: length, metadata: metadata)
        switch try await exchange(request.message, path: path, length: length, method: "POST", url: endpoint) {
        case .created(let location, let offset)?:
            guard let url = Self.uploadURL(location, on: endpoint) else { break }
            // Made, but not with every byte (a copy cut short): the upload is gone on with from
            // what its server says it holds, as after a creating POST whose body was refused.
            guard offset == length else {
                var error = TusError(.serverError, request: "POST \(endpoint) (handed over as a file)", detail: "the engine holds \(offset) of the file's \(length) bytes")
                error.location = url
                throw error
            }
            return (url, offset)
        default:
            break
        }
        broken.store(true, ordering: .relaxed)
        return nil
    }

    /// `location` taken as a `Location` header is: on the endpoint's own server, ending in an
    /// upload id; `nil` for anything else.
    private static func uploadURL(_ location: String, on endpoint: String) -> String? {
        guard let url = TusProtocol.resolve(location: location, against: endpoint), let origin = URLOrigin.of(url), origin == URLOrigin.of(endpoint),
              let id = url.split(separator: "/").last, AssemblyID.isValid(String(id)) else { return nil }
        return url
    }

    /// Appends `length` bytes of the file at `path` from `offset` to the upload at `url`: the
    /// upload's offset after. `nil` when the handoff cannot be used (the caller sends the bytes
    /// over HTTP); a refusal is the error a PATCH would have had.
    func append(to url: String, path: String, offset: Int64, length: Int64) async throws(TusError) -> Int64? {
        guard let id = url.split(separator: "/").last.map(String.init) else { return nil }
        let request = LocalHandoff.Append(id: id, offset: offset, length: length)
        switch try await exchange(request.message, path: path, length: length, method: "PATCH", url: url) {
        case .stored(let stored)?:
            // All the bytes handed over or a failure: no progress, or more than sent, is not believed.
            guard stored == offset + length else {
                throw TusError(.serverError, request: "PATCH \(url) (handed over as a file)", detail: "the engine holds \(stored) bytes after \(length) more from \(offset)")
            }
            return stored
        default:
            broken.store(true, ordering: .relaxed)
            return nil
        }
    }

    /// Sends `message` with the file at `path`: the engine's reply, `nil` when it could not be had.
    /// A refusal is thrown as the error a `method` request to `url` would have had.
    private func exchange(_ message: String, path: String, length: Int64, method: String, url: String) async throws(TusError) -> LocalHandoff.Reply? {
        guard isUsable else { return nil }
        // Blocking calls, on a pool's thread rather than one of the tasks' threads.
        let reply: LocalHandoff.Reply? = await withCheckedContinuation { continuation in
            Self.threads.submit { continuation.resume(returning: self.send(message, path: path, length: length)) }
        }
        if case .refused(let status, let detail)? = reply {
            throw TusError(TusError.kind(status: status, method: method), request: "\(method) \(url) (handed over as a file)", status: status, detail: detail)
        }
        return reply
    }

    /// One request on a greeted connection; `nil` when the socket cannot be reached or answers
    /// out of turn.
    private func send(_ message: String, path: String, length: Int64) -> LocalHandoff.Reply? {
        let file = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else { return nil }
        defer { close(file) }
        // A kept connection the engine closed meanwhile (after a minute of silence) refuses the
        // send, and nothing was asked: a new one is made for it.
        var connection = keptConnection()
        if let kept = connection, !kept.send(message, file: file) { connection = nil }
        if connection == nil {
            guard let fresh = greeted(), fresh.send(message, file: file) else { return nil }
            connection = fresh
        }
        // The engine answers after copying: allow for a slow disk, a second per 10 MB beyond a minute.
        let waiting = Duration.seconds(60 + length / 10_000_000)
        guard let connection, let (text, extra) = connection.receive(waiting: waiting) else { return nil }
        if extra >= 0 { close(extra) }
        guard let reply = LocalHandoff.Reply(message: text) else { return nil }
        idle.withLock { $0.append((connection, ContinuousClock.now)) }
        sweepLater()
        return reply
    }

    /// The connection that fell idle last, after closing those idle too long (the oldest first
    /// in the list).
    private func keptConnection() -> MessageSocket? {
        idle.withLock { idle in
            closeStale(&idle)
            return idle.popLast()?.connection
        }
    }

    /// Drops (and so closes) the connections idle longer than `keepIdle`.
    private func closeStale(_ idle: inout [(connection: MessageSocket, since: ContinuousClock.Instant)]) {
        let oldest = ContinuousClock.now - keepIdle
        idle.removeAll { $0.since < oldest }
    }

    /// Closes the connections idle too long once `keepIdle` has passed, and again while any are
    /// kept: a run that pauses does not hold the engine's connections it is not using.
    private func sweepLater() {
        guard sweeping.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        Task { [weak self, keepIdle] in
            _ = await Task.pause(for: keepIdle)  // never cancelled: the sweep runs after the pause
            guard let self else { return }
            let kept = idle.withLock { idle in
                closeStale(&idle)
                return !idle.isEmpty
            }
            sweeping.store(false, ordering: .relaxed)
            if kept { sweepLater() }
        }
    }

    /// A new connection to a process of this user whose greeting carries the offer's token (any
    /// local user can read the token in `OPTIONS`, and no other user's program is handed a file).
    private func greeted() -> MessageSocket? {
        guard let connection = MessageSocket.connect(offer.path), connection.peerUserID == getuid(),
              let (greeting, extra) = connection.receive(waiting: .seconds(5)) else { return nil }
        if extra >= 0 { close(extra) }
        return greeting == offer.greeting ? connection : nil
    }
}
