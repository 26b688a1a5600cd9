import CMicroHTTPD
import Foundation

/// One request's state between libmicrohttpd's calls; owned by the connection's thread.
final class RequestContext: @unchecked Sendable {
    let head: RequestHead
    let plan: RequestPlan
    let started = ContinuousClock.now
    var failure: ServerResponse?
    var answered = false
    var status = 0
    private var collected = Data()
    private var form: FormCollector?

    init(head: RequestHead, plan: RequestPlan, connection: OpaquePointer?) {
        self.head = head
        self.plan = plan
        if case .form(let directory, let limit, _) = plan {
            form = FormCollector(connection: connection, directory: directory, limit: limit)
            if form?.isValid == false {
                failure = .text(415, "the body must be multipart/form-data or application/x-www-form-urlencoded")
            }
        }
    }

    /// Takes a piece of the body; the first failure is kept and the rest is discarded.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        switch plan {
        case .respond:
            break
        case .collect(let limit, _):
            if collected.count + bytes.count > limit {
                failure = .text(413, "the request body is larger than \(limit) bytes")
            } else {
                collected.append(contentsOf: bytes)
            }
        case .stream(let sink, _):
            do { try sink.write(bytes) } catch { failure = error.response }
        case .form:
            if let problem = form?.feed(bytes) { failure = problem }
        }
    }

    /// The response once the whole body has arrived.
    func finish() -> ServerResponse {
        if let failure {
            if case .stream(let sink, _) = plan { sink.close(complete: false) }
            return failure
        }
        switch plan {
        case .respond(let response):
            return response
        case .collect(_, let then):
            return then(collected)
        case .stream(let sink, let then):
            sink.close(complete: true)
            return then()
        case .form(_, _, let then):
            guard let form, let data = form.finish() else { return .text(400, "the form could not be parsed") }
            return then(data)
        }
    }

    /// The connection ended before `finish`: let a stream keep what arrived.
    func abandon() {
        if case .stream(let sink, _) = plan, !answered { sink.close(complete: false) }
        form?.discard()
    }
}
