import CMicroHTTPD
import Foundation
import HTTP

/// An HTTP/1.1 server on libmicrohttpd: one thread per connection, bodies streamed to the
/// handler's sinks, idle connections closed after a timeout.
public final class HTTPServer: @unchecked Sendable {
    /// What the server was asked to do on start.
    public struct Configuration: Sendable {
        /// The IPv4 address to bind (127.0.0.1 by default).
        public var host: String
        /// The port; 0 picks a free one.
        public var port: UInt16
        /// The most connections at once.
        public var connectionLimit: Int
        /// Seconds an idle connection is kept.
        public var idleTimeout: Int
        /// A PEM private key and certificate (chain) to speak HTTPS; `nil` for plain HTTP.
        public var tls: (keyPEM: String, certificatePEM: String)?

        /// Creates a configuration.
        public init(
            host: String = "127.0.0.1", port: UInt16 = 0, connectionLimit: Int = 512, idleTimeout: Int = 60,
            tls: (keyPEM: String, certificatePEM: String)? = nil
        ) {
            self.host = host
            self.port = port
            self.connectionLimit = connectionLimit
            self.idleTimeout = idleTimeout
            self.tls = tls
        }
    }

    /// A server that could not start.
    public struct StartError: Error, CustomStringConvertible {
        /// Why.
        public var description: String
    }

    let handler: any HTTPServerHandler
    let log: (@Sendable (String) -> Void)?
    private var daemon: OpaquePointer?
    private let scheme: String
    /// The port the server listens on.
    public private(set) var port: UInt16 = 0

    /// Starts serving `handler`; `log` receives one line per finished request.
    public init(_ configuration: Configuration, handler: any HTTPServerHandler, log: (@Sendable (String) -> Void)? = nil) throws(StartError) {
        self.handler = handler
        self.log = log
        scheme = configuration.tls == nil ? "http" : "https"
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started = configuration.tls.map { tls in
            pipeline_mhd_start(
                configuration.host, configuration.port, UInt32(configuration.connectionLimit), UInt32(configuration.idleTimeout),
                accessHandler, context, completedHandler, context, tls.keyPEM, tls.certificatePEM)
        } ?? pipeline_mhd_start(
            configuration.host, configuration.port, UInt32(configuration.connectionLimit), UInt32(configuration.idleTimeout),
            accessHandler, context, completedHandler, context, nil, nil)
        guard let daemon = started else {
            let tlsHint = configuration.tls == nil ? "" : ", or the TLS key and certificate do not match"
            throw StartError(description: "cannot listen on \(configuration.host):\(configuration.port) (address in use, or not an IPv4 address\(tlsHint)?)")
        }
        self.daemon = daemon
        port = pipeline_mhd_port(daemon)
    }

    /// Stops accepting connections and waits for the connection threads to end.
    public func stop() {
        guard let daemon else { return }
        self.daemon = nil
        MHD_stop_daemon(daemon)
    }

    deinit { stop() }

    fileprivate func head(connection: OpaquePointer?, url: String, method: String) -> RequestHead {
        let collector = PairCollector()
        let context = Unmanaged.passUnretained(collector).toOpaque()
        MHD_get_connection_values(connection, .HEADER_KIND, pairIterator, context)
        let headers = HTTPHeaders(collector.pairs)
        collector.pairs = []
        MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, pairIterator, context)
        let query = Dictionary(collector.pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        let host = headers["Host"] ?? "127.0.0.1:\(port)"
        return RequestHead(method: method, path: url, query: query, headers: headers, origin: "\(scheme)://\(host)")
    }

    fileprivate func queue(_ response: ServerResponse, on connection: OpaquePointer?, context: RequestContext) -> MHD_Result {
        let created: OpaquePointer?
        switch response.body {
        case .empty:
            created = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        case .data(let data):
            created = data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .file(let path, let offset, let length):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            created = descriptor < 0 ? nil : MHD_create_response_from_fd_at_offset64(UInt64(length), descriptor, UInt64(offset))
        }
        guard let created else { return .NO }
        for header in response.headers {
            MHD_add_response_header(created, header.name, header.value)
        }
        context.answered = true
        context.status = response.status
        let result = MHD_queue_response(connection, UInt32(response.status), created)
        MHD_destroy_response(created)
        return result
    }

    fileprivate func finished(_ context: RequestContext, completed: Bool) {
        if !completed { context.abandon() }
        guard let log else { return }
        let elapsed = ContinuousClock.now - context.started
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        let status = context.answered ? String(context.status) : "dropped"
        log("\(context.head.method) \(context.head.path) \(status) \(milliseconds)ms")
    }
}

private final class PairCollector: @unchecked Sendable {
    var pairs: [(name: String, value: String)] = []
}

private let pairIterator: MHD_KeyValueIterator = { context, _, key, value in
    guard let context, let key else { return .YES }
    let collector = Unmanaged<PairCollector>.fromOpaque(context).takeUnretainedValue()
    collector.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return .YES
}

private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, uploadData, uploadSize, state in
    guard let context, let state, let uploadSize else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    guard let existing = state.pointee else {
        let head = server.head(
            connection: connection, url: url.map { String(cString: $0) } ?? "/", method: method.map { String(cString: $0) } ?? "GET")
        let request = RequestContext(head: head, plan: server.handler.plan(head), connection: connection)
        state.pointee = Unmanaged.passRetained(request).toOpaque()
        if case .respond(let response) = request.plan {
            return server.queue(response, on: connection, context: request)
        }
        if let failure = request.failure {
            return server.queue(failure, on: connection, context: request)
        }
        return .YES
    }
    let request = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        request.receive(UnsafeRawBufferPointer(start: uploadData.map { UnsafeRawPointer($0) }, count: uploadSize.pointee))
        uploadSize.pointee = 0
        return .YES
    }
    guard !request.answered else { return .YES }
    return server.queue(request.finish(), on: connection, context: request)
}

private let completedHandler: MHD_RequestCompletedCallback = { context, _, state, termination in
    guard let context, let state, let existing = state.pointee else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    let request = Unmanaged<RequestContext>.takeRetainedValue(Unmanaged<RequestContext>.fromOpaque(existing))()
    state.pointee = nil
    server.finished(request, completed: termination == .REQUEST_TERMINATED_COMPLETED_OK)
}
