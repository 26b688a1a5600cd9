internal import CMicroHTTPD
import Basics
import Foundation
import Synchronization
import Wire

/// An HTTP/1.1 server on libmicrohttpd: one thread per connection, bodies streamed to the
/// handler's sinks, keep-alive, and limits that keep slow or greedy clients from starving others.
public final class HTTPServer: @unchecked Sendable {  // the daemon pointer, set in init and freed in stop; the rest is Mutex
    /// What the server was asked to do on start.
    public struct Configuration: Sendable {
        /// The IPv4 or IPv6 address to bind (127.0.0.1 by default; `::` listens on both families).
        public var host: String
        /// The port; 0 picks a free one.
        public var port: UInt16
        /// The most connections at once.
        public var connectionLimit: Int
        /// The most connections at once from one client address.
        public var perClientLimit: Int
        /// Seconds a connection may send nothing: an idle keep-alive connection, or a request body
        /// that stalls (it is ended, and what arrived is kept), so slow bodies cannot hold
        /// connections forever.
        public var idleTimeout: Int
        /// Seconds a client has to send a request's whole head (request line and headers).
        public var headerTimeout: Double
        /// Seconds a request body has before its rate counts...
        public var bodyGrace: Double
        /// ... and then the bytes a second it must arrive at on average (a body that trickles is
        /// ended; what arrived is kept, so a tus upload resumes). Slow mobile uploads are far above.
        public var minimumBodyRate: Double
        /// A PEM private key and certificate (chain) to speak HTTPS; `nil` for plain HTTP.
        public var tls: (keyPEM: String, certificatePEM: String)?
        /// Which `Host` headers are answered and what origin URLs are built from; `nil` answers
        /// any `Host` and gives the address served as the origin.
        public var origin: PublicOrigin?
        /// The clock connection deadlines and body rates are measured by; tests give one they move.
        public var clock: any MonotonicClock = SystemClock()

        /// Creates a configuration.
        public init(
            host: String = "127.0.0.1", port: UInt16 = 0, connectionLimit: Int = 1024, perClientLimit: Int = 128,
            idleTimeout: Int = 30, headerTimeout: Double = 10, bodyGrace: Double = 20, minimumBodyRate: Double = 500,
            tls: (keyPEM: String, certificatePEM: String)? = nil, origin: PublicOrigin? = nil
        ) {
            self.host = host
            self.port = port
            self.connectionLimit = connectionLimit
            self.perClientLimit = perClientLimit
            self.idleTimeout = idleTimeout
            self.headerTimeout = headerTimeout
            self.bodyGrace = bodyGrace
            self.minimumBodyRate = minimumBodyRate
            self.tls = tls
            self.origin = origin
        }
    }

    /// A server that could not start.
    public struct StartError: Error, CustomStringConvertible {
        /// Why.
        public var description: String
    }

    let handler: any HTTPServerHandler
    let log: (@Sendable (String) -> Void)?
    let watch: ConnectionWatch
    private var daemon: OpaquePointer?
    private let scheme: String
    private let host: String
    let origin: PublicOrigin?
    /// The port the server listens on.
    public private(set) var port: UInt16 = 0

    /// The connections open now from `address` (every address when nil), by what each is doing.
    public func connections(from address: String? = nil) -> ConnectionCounts { watch.counts(from: address) }

    /// Starts serving `handler`; `log` receives one line per finished request.
    public init(_ configuration: Configuration, handler: any HTTPServerHandler, log: (@Sendable (String) -> Void)? = nil) throws(StartError) {
        self.handler = handler
        self.log = log
        scheme = configuration.tls == nil ? "http" : "https"
        host = configuration.host
        origin = configuration.origin
        // Behind a trusted proxy every connection comes from the proxy: clients are counted by the
        // address it forwards, per request. Otherwise per address, with room above the cap so that
        // the watch, not libmicrohttpd, decides which connection goes (an idle one first).
        let trusted = configuration.origin?.trustProxy == true
        watch = ConnectionWatch(.init(
            headerSeconds: configuration.headerTimeout, idleSeconds: Double(configuration.idleTimeout),
            perAddress: trusted ? nil : configuration.perClientLimit,
            total: configuration.connectionLimit - max(1, configuration.connectionLimit / 16),
            perForwardedClient: configuration.perClientLimit, bodyGrace: configuration.bodyGrace, bodyRate: max(1, configuration.minimumBodyRate)),
            clock: configuration.clock)
        guard var address = ListenAddress(configuration.host, port: configuration.port) else {
            throw StartError(description: "cannot listen on \(configuration.host): not an IPv4 or IPv6 address")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let key = configuration.tls.map { strdup($0.keyPEM) } ?? nil
        let certificate = configuration.tls.map { strdup($0.certificatePEM) } ?? nil
        defer {
            free(key)
            free(certificate)
        }
        var options: [MHD_OptionItem] = [
            .init(option: .CONNECTION_LIMIT, value: configuration.connectionLimit, ptr_value: nil),
            .init(option: .PER_IP_CONNECTION_LIMIT, value: trusted ? 0 : 2 * configuration.perClientLimit, ptr_value: nil),
            .init(option: .CONNECTION_TIMEOUT, value: configuration.idleTimeout, ptr_value: nil),
            .init(option: .CONNECTION_MEMORY_LIMIT, value: 512 * 1024, ptr_value: nil),
            .init(option: .NOTIFY_COMPLETED, value: unsafeBitCast(completedHandler, to: Int.self), ptr_value: context),
            .init(option: .NOTIFY_CONNECTION, value: unsafeBitCast(connectionHandler, to: Int.self), ptr_value: context),
            .init(option: .UNESCAPE_CALLBACK, value: unsafeBitCast(unescapeHandler, to: Int.self), ptr_value: nil),
        ]
        if let key, let certificate {
            options.append(.init(option: .HTTPS_MEM_KEY, value: 0, ptr_value: UnsafeMutableRawPointer(key)))
            options.append(.init(option: .HTTPS_MEM_CERT, value: 0, ptr_value: UnsafeMutableRawPointer(certificate)))
        }
        var flags = MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_POLL.rawValue
        if configuration.tls != nil { flags |= MHD_USE_TLS.rawValue }
        // `::` takes IPv4 clients too (dual stack); any other IPv6 address only its own family.
        if address.isIPv6 { flags |= configuration.host == "::" ? MHD_USE_DUAL_STACK.rawValue : MHD_USE_IPv6.rawValue }
        let started = address.withSocketAddress { socketAddress in
            options.append(.init(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(socketAddress)))
            options.append(.init(option: .END, value: 0, ptr_value: nil))
            return pipeline_mhd_start(UInt32(flags), configuration.port, accessHandler, context, options)
        }
        guard let daemon = started else {
            let tlsHint = configuration.tls == nil ? "" : ", or the TLS key and certificate do not match"
            throw StartError(description: "cannot listen on \(configuration.host):\(configuration.port) (address in use\(tlsHint)?)")
        }
        self.daemon = daemon
        port = pipeline_mhd_port(daemon)
    }

    /// Stops accepting connections and waits for the connection threads to end.
    public func stop() {
        guard let daemon else { return }
        self.daemon = nil
        watch.stop()
        MHD_stop_daemon(daemon)
    }

    deinit { stop() }

    /// The request's head, with its origin; `nil` origin when its `Host` may not be answered.
    func head(connection: OpaquePointer?, url: String, method: String, version: String) -> (head: RequestHead, acceptedHost: Bool) {
        let collector = PairCollector()
        let context = Unmanaged.passUnretained(collector).toOpaque()
        MHD_get_connection_values(connection, .HEADER_KIND, pairIterator, context)
        let headers = HTTPHeaders(collector.pairs)
        collector.pairs = []
        MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, pairIterator, context)
        let query = Dictionary(collector.pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        let served = "\(ListenAddress.servedName(host)):\(port)"
        var origin = "\(scheme)://\(served)"
        var accepted = true
        if let rule = self.origin {
            if let chosen = rule.origin(headers: headers, scheme: scheme, served: isServed) {
                origin = chosen
            } else if headers["Host"] != nil {
                accepted = false
            } else if let fixed = rule.fixed {
                origin = fixed
            }
        }
        var head = RequestHead(method: method, path: url, query: query, headers: headers, origin: origin)
        head.isDirect = version != "HTTP/1.0" && self.origin?.fixed == nil && self.origin?.trustProxy != true
            && !["Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-IP", "Via"].contains { headers[$0] != nil }
        return (head, accepted)
    }

    /// The trailer fields of a chunked request body, once the whole request is in.
    func trailers(connection: OpaquePointer?) -> HTTPHeaders {
        let collector = PairCollector()
        MHD_get_connection_values(connection, .FOOTER_KIND, pairIterator, Unmanaged.passUnretained(collector).toOpaque())
        return HTTPHeaders(collector.pairs)
    }

    /// Whether `authority` (`host:port`, lowercased) reaches this server directly.
    private func isServed(_ authority: String) -> Bool {
        guard authority.hasSuffix(":\(port)") else { return false }
        let name = String(authority.dropLast(":\(port)".count))
        return ListenAddress.serves(name, listening: host)
    }

    func queue(_ response: ServerResponse, on connection: OpaquePointer?, context: RequestContext) -> MHD_Result {
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

    func finished(_ context: RequestContext) {
        context.close()
        context.end.ended()
        guard let log else { return }
        let elapsed = ContinuousClock.now - context.started
        let status = context.answered ? String(context.status) : "dropped"
        // The method and path are the client's words: made printable, they forge no log line and move no cursor.
        log("\(context.head.method.printable) \(context.head.path.printable) \(status) \(elapsed.inMilliseconds)ms")
    }
}
