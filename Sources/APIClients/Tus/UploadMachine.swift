import Basics
import Foundation

/// One file's tus upload as a state machine: the server's answers go in as events, the next
/// request (or a wait, or the end) comes out, with what the resume record must learn. It does
/// no I/O, so every path (resume, retry with backoff, a forgotten upload, a creation refused
/// with a Location, a proxy's refusals) is a transition a test can feed (`UploadMachineTests`).
struct UploadMachine: Sendable {
    /// What to do next.
    enum Action: Equatable, Sendable {
        /// `POST` a new upload (with the body when the file is small).
        case create
        /// `HEAD` the upload for the server's offset.
        case askOffset(url: String)
        /// `PATCH` from `offset`.
        case send(url: String, offset: Int64)
        /// Wait before trying again.
        case wait(Duration)
        /// Every byte is on the server.
        case finish(url: String)
        /// Give up with this error.
        case fail(TusError)
    }

    /// What the server (or the transport) said.
    enum Event: Sendable {
        /// The upload's offset, from a `HEAD`.
        case offsetKnown(Int64)
        /// A new upload, holding `offset` bytes (the creating request may carry some).
        case created(url: String, offset: Int64)
        /// A `PATCH` was taken; the server's new offset.
        case sent(offset: Int64)
        /// A proxy refused the request's size or its trailer; the caller adapted, send again.
        case sendRefused
        /// A request failed.
        case failed(TusError)
        /// The wait asked for is over.
        case waited
    }

    /// What the resume record must learn from a transition.
    enum Record: Equatable, Sendable {
        /// Remember the upload at this URL.
        case save(url: String)
        /// Forget the upload: the server has none.
        case forget
    }

    let size: Int64
    let retry: RetryPolicy
    /// The upload's URL, once there is one.
    private(set) var url: String?
    /// Bytes the server has confirmed.
    private(set) var offset: Int64 = 0
    /// The offset found when resuming an earlier upload (0 for a new one).
    private(set) var resumedFrom: Int64 = 0
    /// Whether the plan's digest may still stand for the file's checksum (until a mismatch says otherwise).
    private(set) var trustsKnownDigest = true
    private var attempt = 0
    private var offsetAtLastFailure: Int64 = -1
    private var needsStatus: Bool
    /// Whether this call created the upload: if the server then forgets it, that counts as a failed attempt.
    private var createdHere = false

    /// A machine for a file of `size` bytes; `resuming` is a stored upload URL.
    init(size: Int64, resuming: String?, retry: RetryPolicy) {
        self.size = size
        self.retry = retry
        url = resuming
        needsStatus = resuming != nil
    }

    /// The first action.
    var start: Action { resume() }

    /// Takes `event` and says what to do next, and what the resume record must learn.
    mutating func handle(_ event: Event) -> (action: Action, record: Record?) {
        switch event {
        case .offsetKnown(let known):
            offset = known
            if resumedFrom == 0 { resumedFrom = known }
            needsStatus = false
            return (progress(), nil)
        case .created(let created, let known):
            url = created
            createdHere = true
            offset = known
            return (progress(), .save(url: created))
        case .sent(let known):
            offset = known
            return (progress(), nil)
        case .sendRefused:
            return (progress(), nil)
        case .waited:
            return (resume(), nil)
        case .failed(let error):
            return failed(error)
        }
    }

    private mutating func failed(_ error: TusError) -> (action: Action, record: Record?) {
        var record: Record?
        // A creating request refused with a Location (a body whose checksum failed): the upload
        // exists, empty; it is used, not abandoned for a new one per retry.
        if url == nil, let location = error.location, error.kind != .gone {
            url = location
            createdHere = true
            needsStatus = true
            record = .save(url: location)
        }
        if error.kind == .gone {
            // The server forgot the upload (or never had it): start a new one; not an attempt,
            // unless this call created it (then the server keeps losing uploads).
            record = .forget
            guard url != nil else { return (.fail(error), record) }
            url = nil
            offset = 0
            needsStatus = false
            if !createdHere { return (.create, record) }
        }
        guard error.isRetryable || error.kind == .gone else { return (.fail(error), record) }
        // The count of attempts starts again whenever the server's offset has moved forward.
        if offset > offsetAtLastFailure { attempt = 0 }
        offsetAtLastFailure = offset
        // A rate limit is waited out as the server asks, and for at least a second.
        let rateLimited = error.kind == .rateLimited
        guard let delay = retry.wait(afterAttempt: attempt + 1, advice: .init(statedSeconds: rateLimited ? error.retryAfter : nil, isRateLimit: rateLimited)) else {
            return (.fail(error), record)
        }
        attempt += 1
        // After a checksum mismatch the offset stands (nothing was written); otherwise ask.
        needsStatus = url != nil && error.kind != .checksumMismatch
        // A mismatch with the plan's digest: the file changed within the same clock tick.
        if error.kind == .checksumMismatch { trustsKnownDigest = false }
        createdHere = false
        return (.wait(delay), record)
    }

    private func resume() -> Action {
        guard let url else { return .create }
        return needsStatus ? .askOffset(url: url) : progress()
    }

    private func progress() -> Action {
        guard let url else { return .create }
        return offset < size ? .send(url: url, offset: offset) : .finish(url: url)
    }
}
