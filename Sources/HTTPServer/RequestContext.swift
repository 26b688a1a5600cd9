internal import CMicroHTTPD
import Foundation
import Wire

/// One request's state between libmicrohttpd's calls; owned by the connection's thread.
final class RequestContext: @unchecked Sendable {  // one connection thread at a time, as libmicrohttpd calls it
    let head: RequestHead
    let plan: RequestPlan
    let started = ContinuousClock.now
    /// What runs once the request has ended (`RequestHead.whenEnded`).
    let end: RequestEnd
    var failure: ServerResponse?
    var answered = false
    var status = 0
    /// The client a trusted proxy forwarded this request for, while it counts against its share.
    var forwardedClient: String?
    private var collected = Data()
    private var form: FormCollector?
    private var sinkClosed = false
    private var discarded: Int64 = 0

    /// Bytes of a refused body read and dropped before the refusal is sent at once (which closes
    /// the connection, and a client still sending may then miss the answer).
    static let discardLimit: Int64 = 1 << 30

    init(head: RequestHead, plan: RequestPlan, connection: OpaquePointer?, end: RequestEnd) {
        self.head = head
        self.plan = plan
        self.end = end
        if case .form(let directory, let limit, let admit, _) = plan {
            form = FormCollector(connection: connection, directory: directory, limit: limit, admit: admit)
            if form?.isValid == false {
                failure = .text(415, "the body must be multipart/form-data or application/x-www-form-urlencoded")
            }
        }
    }

    /// Whether the client announced a body (a response sent before it is read closes the connection).
    var hasBody: Bool {
        (Int64(head.headers["Content-Length"] ?? "0") ?? 1) > 0 || head.headers["Transfer-Encoding"] != nil
    }

    /// The answer known before any body arrives: a refusal, or a `.respond` plan's response.
    var earlyResponse: ServerResponse? {
        if let failure { return failure }
        if case .respond(let response) = plan { return response }
        return nil
    }

    /// Whether a refused body has been drained long enough: answer now and close.
    var drainedEnough: Bool { failure != nil && discarded > Self.discardLimit }

    /// Takes a piece of the body; the first failure is kept and the rest is read and dropped.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else {
            discarded += Int64(bytes.count)
            return
        }
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

    /// The response once the whole body (and its trailer fields, if chunked) has arrived; the
    /// trailers are read only for a streamed body, the one kind that uses them.
    func finish(trailers: @autoclosure () -> HTTPHeaders) -> ServerResponse {
        if let failure {
            closeSink(complete: false)
            return failure
        }
        switch plan {
        case .respond(let response):
            return response
        case .collect(_, let then):
            return then(collected)
        case .stream(_, let then):
            closeSink(complete: true, trailers: trailers())
            return then()
        case .form(_, _, _, let then):
            guard let form else { return .text(400, "the form could not be parsed") }
            let response: ServerResponse
            switch form.finish() {
            case .success(let data): response = then(data)
            case .failure(let refusal): response = refusal.response
            }
            // The handler has moved the files it keeps; the others are gone before the answer leaves.
            form.cleanUp()
            return response
        }
    }

    /// The request is over: a stream that was not finished (a dropped connection, or a refusal
    /// sent early) keeps what arrived, and every temporary file of a form is removed (the handler
    /// has moved the ones it keeps).
    func close() {
        closeSink(complete: false)
        form?.cleanUp()
    }

    /// Closes a stream plan's sink once, whatever the path that ends the request.
    private func closeSink(complete: Bool, trailers: HTTPHeaders = HTTPHeaders()) {
        guard case .stream(let sink, _) = plan, !sinkClosed else { return }
        sinkClosed = true
        sink.close(complete: complete, trailers: trailers)
    }
}
