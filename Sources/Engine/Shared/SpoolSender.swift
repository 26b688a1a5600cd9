import Basics
import HTTPClient
import Synchronization

/// Sends a PATCH body's whole parts on to S3 while the rest of it arrives, so a PATCH takes about
/// as long as the slower of the two, not both. Each part goes in order, after the one before; what
/// is left when the body ends (under a part, or all of it after a failure) is sent by `save`.
final class SpoolSender: Sendable {
    private struct State {
        /// The upload as the parts sent so far leave it.
        var object: S3ResumableUpload
        /// The last send under way; each waits for the one before.
        var last: Task<Void, Never>?
        /// Where the spool's bytes have been handed to a send up to.
        var handed: Int64
        var failed = false
    }

    private let state: Mutex<State>
    private let writer: S3ResumableWriter
    private let spool: String

    /// A sender continuing `object` (as stored when the body began) from the spool file `spool`.
    init(object: S3ResumableUpload, writer: S3ResumableWriter, spool: String) {
        state = Mutex(State(object: object, handed: object.offset))
        (self.writer, self.spool) = (writer, spool)
    }

    /// The body's bytes are in the spool up to `end`: the whole parts among those not handed on yet
    /// (with the tail the upload had) start on their way.
    func written(through end: Int64) {
        state.withLock { state in
            guard !state.failed else { return }
            let partSize = state.object.partSize
            // Bytes joined to the upload's tail at the start; then every send is whole parts.
            let waiting = end - state.handed + (state.handed == state.object.offset ? state.object.tailSize : 0)
            let parts = waiting / partSize
            guard parts > 0 else { return }
            let from = state.handed
            let length = parts * partSize - (state.handed == state.object.offset ? state.object.tailSize : 0)
            state.handed = from + length
            let previous = state.last
            state.last = Task { [self] in
                await previous?.value
                guard let current = self.state.withLock({ $0.failed ? nil : $0.object }) else { return }
                do {
                    let next = try await writer.append(current, from: spool, offset: from, length: length)
                    self.state.withLock { $0.object = next }
                } catch {
                    self.state.withLock { $0.failed = true }  // `save` sends all that is left from the stored state
                }
            }
        }
    }

    /// Waits for the sends under way; the upload as they left it, or nil when one failed.
    @available(*, noasync, message: "blocks its thread")
    func finish() -> S3ResumableUpload? {
        let last = state.withLock { $0.last }
        if let last { _ = BlockingWait.result { await last.value } }
        return state.withLock { $0.failed ? nil : $0.object }
    }
}
