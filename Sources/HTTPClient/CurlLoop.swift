internal import CCurl
import Basics
import Foundation
import Synchronization

/// Whether libcurl's global state is set up; done once, before the first handle.
let curlReady: Bool = ccurl_global_init() == CURLE_OK

/// Runs every transfer of one client on a single thread with libcurl's multi interface, so
/// transfers share connections and many run at once without a thread each.
final class CurlLoop: @unchecked Sendable {  // `active` and the multi handle are the loop thread's; the rest is Mutex and Atomic
    private let multi: UnsafeMutableRawPointer
    private let pending = Mutex<[Transfer]>([])
    private let stopping = Atomic<Bool>(false)
    /// Transfers added to the multi handle; touched only on the loop thread.
    private var active: [Transfer] = []

    init?() {
        guard curlReady, let multi = curl_multi_init() else { return nil }
        self.multi = multi
        ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 64)
        DedicatedThread.start("pipeline.http") { [self] in run() }
    }

    /// Queues a configured transfer and wakes the loop; after `stop` it fails at once.
    func submit(_ transfer: Transfer) {
        let accepted = pending.withLock { queue -> Bool in
            guard !stopping.load(ordering: .relaxed) else { return false }
            queue.append(transfer)
            return true
        }
        guard accepted else {
            complete(transfer, .failure(HTTPError(.cancelled, request: transfer.request.summary)))
            return
        }
        curl_multi_wakeup(multi)
    }

    /// Asks a transfer to stop; it completes with a cancellation error.
    func cancel(_ transfer: Transfer) {
        transfer.cancelled.store(true, ordering: .relaxed)
        curl_multi_wakeup(multi)
    }

    /// Ends the loop once in-flight transfers have been failed.
    func stop() {
        pending.withLock { _ in stopping.store(true, ordering: .relaxed) }
        curl_multi_wakeup(multi)
    }

    private func run() {
        while !stopping.load(ordering: .relaxed) {
            for transfer in pending.withLock({ queue in defer { queue = [] }; return queue }) {
                guard curl_multi_add_handle(multi, transfer.handle) == CURLM_OK else {
                    complete(transfer, .failure(HTTPError(.transport(code: -1, message: "libcurl refused the transfer"), request: transfer.request.summary)))
                    continue
                }
                active.append(transfer)
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            collectFinished()
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for transfer in active + pending.withLock({ queue in defer { queue = [] }; return queue }) {
            curl_multi_remove_handle(multi, transfer.handle)
            complete(transfer, .failure(HTTPError(.cancelled, request: transfer.request.summary)))
        }
        active = []
        curl_multi_cleanup(multi)
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let code = ccurl_message_result(message)
            curl_multi_remove_handle(multi, handle)
            guard let index = active.firstIndex(where: { $0.handle == handle }) else { continue }
            let transfer = active.remove(at: index)
            transfer.status = transfer.status == 0 ? ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE) : transfer.status
            complete(transfer, transfer.result(code: code))
        }
    }

    private func complete(_ transfer: Transfer, _ result: Result<HTTPResponse, HTTPError>) {
        let continuation = transfer.continuation
        transfer.continuation = nil
        continuation?.resume(with: result.mapError { $0 as any Error })
    }
}
