internal import CMicroHTTPD
internal import CLinux
import Foundation
import Wire

// libmicrohttpd's callbacks. Each gets the server through an unretained context pointer (the
// server outlives its daemon) and each request's `RequestContext` through the per-request slot.

final class PairCollector: @unchecked Sendable {  // filled and read within one synchronous libmicrohttpd call
    var pairs: [(name: String, value: String)] = []
}

let pairIterator: MHD_KeyValueIterator = { context, _, key, value in
    guard let context, let key else { return .YES }
    let collector = Unmanaged<PairCollector>.fromOpaque(context).takeUnretainedValue()
    collector.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return .YES
}

/// Called once when a request's head has arrived, then for each piece of its body, then once more
/// with no data when the whole request is in. A response queued before that last call makes the
/// server close the connection afterwards, so only answers that need no body are sent early.
let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, version, uploadData, uploadSize, state in
    guard let context, let state, let uploadSize else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    guard let existing = state.pointee else {
        var (head, acceptedHost) = server.head(
            connection: connection, url: url.map { String(cString: $0) } ?? "/", method: method.map { String(cString: $0) } ?? "GET",
            version: version.map { String(cString: $0) } ?? "HTTP/1.1")
        if let socket = server.watch.handle(connection)?.descriptor {
            // Asked only while the request's handler runs, when the connection (and its socket) is still open.
            head.clientGone = { pipeline_peer_gone(socket) != 0 }
        }
        let end = RequestEnd()
        head.whenEnded = { end.add($0) }
        let plan: RequestPlan
        // Behind a trusted proxy, a client is the address it forwards: each has a share of requests.
        let forwardedClient = server.origin?.trustProxy == true ? PublicOrigin.forwardedClient(head.headers) : nil
        let admitted = forwardedClient.map { server.watch.admit(forwardedClient: $0) } ?? true
        if !admitted {
            plan = .respond(.json(429, HTTPServer.tooManyAtOnce, headers: [("Retry-After", "1")]))
        } else if let problem = RequestFraming.problem(head.headers) {
            // Answered before the body is read, which closes the connection: nothing after this head is a request.
            plan = .respond(.text(400, problem, headers: [("Connection", "close")]))
        } else if acceptedHost {
            plan = server.handler.plan(head)
        } else {
            plan = .respond(.json(421, #"{"error":"MISDIRECTED_REQUEST","message":"this server does not answer for that Host; use its address, or start it with --public-url"}"#))
        }
        let request = RequestContext(head: head, plan: plan, connection: connection, end: end)
        request.forwardedClient = admitted ? forwardedClient : nil
        server.watch.headersArrived(connection, hasBody: request.hasBody)
        if case .stream(let sink, _) = plan, let handle = server.watch.handle(connection) {
            let watch = server.watch
            sink.attach(RequestEnder { watch.shutDown(handle.key, descriptor: handle.descriptor) })
        }
        state.pointee = Unmanaged.passRetained(request).toOpaque()
        if request.hasBody, let early = request.earlyResponse {
            return server.queue(early, on: connection, context: request)
        }
        return .YES
    }
    let request = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        server.watch.bodyReceived(connection, count: uploadSize.pointee)
        if !request.answered {
            request.receive(UnsafeRawBufferPointer(start: uploadData.map { UnsafeRawPointer($0) }, count: uploadSize.pointee))
        }
        uploadSize.pointee = 0
        // A refused body is drained (not kept) so the client reads the answer; past a limit it is
        // answered at once and the connection closes.
        if !request.answered, request.drainedEnough, let failure = request.failure {
            return server.queue(failure, on: connection, context: request)
        }
        return .YES
    }
    server.watch.bodyEnded(connection)
    guard !request.answered else { return .YES }
    return server.queue(request.finish(trailers: server.trailers(connection: connection)), on: connection, context: request)
}

let completedHandler: MHD_RequestCompletedCallback = { context, connection, state, _ in
    guard let context, let state, let existing = state.pointee else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    server.watch.requestEnded(connection)
    let request = Unmanaged<RequestContext>.fromOpaque(existing).takeRetainedValue()
    if let client = request.forwardedClient { server.watch.release(forwardedClient: client) }
    state.pointee = nil
    server.finished(request)
}

let connectionHandler: MHD_NotifyConnectionCallback = { context, connection, _, event in
    guard let context else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    // MHD_CONNECTION_NOTIFY_STARTED is 0, MHD_CONNECTION_NOTIFY_CLOSED is 1.
    if event.rawValue == 0 {
        server.watch.connectionStarted(connection)
    } else {
        server.watch.connectionClosed(connection)
    }
}

/// Decodes `%HH` in the path and query in place, except `%00`: a NUL would cut the text short
/// (`/assemblies/<id>%00x` would name `<id>`), so it stays as written and matches nothing.
let unescapeHandler: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = { _, _, text in
    guard let text else { return 0 }
    func hex(_ byte: CChar) -> Int? {
        switch UInt8(bitPattern: byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte) - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte) - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte) - 55
        default: nil
        }
    }
    var read = 0
    var written = 0
    while text[read] != 0 {
        if text[read] == CChar(UInt8(ascii: "%")), text[read + 1] != 0, text[read + 2] != 0,
           let high = hex(text[read + 1]), let low = hex(text[read + 2]), high * 16 + low != 0 {
            text[written] = CChar(bitPattern: UInt8(high * 16 + low))
            read += 3
        } else {
            text[written] = text[read]
            read += 1
        }
        written += 1
    }
    text[written] = 0
    return written
}

extension HTTPServer {
    /// The answer to a client (behind a trusted proxy) holding more than its share of the
    /// connections: the API's rate-limit refusal, worth trying again in a second.
    static let tooManyAtOnce: String = {
        var document = AssemblyStatusDocument()
        (document.error, document.message) = (.rateLimitReached, "too many requests from one client at once; try again shortly")
        document.info = .init(retryIn: 1)
        return document.jsonText()
    }()
}
