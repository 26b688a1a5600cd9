import Foundation

/// A real nginx (Debian's `nginx-light`) in front of test servers on 127.0.0.1: started with a
/// configuration written for the test on a free port, stopped by its PID. Request buffering is
/// nginx's default, as in a stock deployment: chunked bodies are read whole and passed on with
/// a length, and their trailers are dropped. Several servers behind it take requests in turn
/// (round robin, no sticky sessions); one that refuses a connection is passed over.
public final class NginxProxy: @unchecked Sendable {
    /// The port nginx listens on.
    public let port: Int
    private let process: Process
    private let folder: TemporaryDirectory

    /// The nginx binary the tests use.
    public static let executable = "/usr/sbin/nginx"

    /// Starts nginx on `port` (a free one when nil) proxying to 127.0.0.1:`upstream`; `server` adds directives to its `server`
    /// block (such as `client_max_body_size 1m;`), `location` to its `location /` block.
    public convenience init(upstream: Int, port chosen: Int? = nil, server: String = "client_max_body_size 0;", location: String = "") throws {
        try self.init(upstreams: [upstream], port: chosen, server: server, location: location)
    }

    /// Starts nginx on `port` (a free one when nil) passing each request to the next of the
    /// servers on 127.0.0.1:`upstreams`, in turn; `server` and `location` as for one upstream.
    public init(upstreams: [Int], port chosen: Int? = nil, server: String = "client_max_body_size 0;", location: String = "") throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw NSError(domain: "NginxProxy", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx is not installed (scripts/setup.sh installs nginx-light)"])
        }
        folder = try TemporaryDirectory(prefix: "nginx")
        port = try chosen ?? Self.freePort()
        let root = folder.path
        let config = """
            \(getuid() == 0 ? "user root;" : "")
            worker_processes 1;
            daemon off;
            master_process off;
            pid \(root)/nginx.pid;
            error_log \(root)/error.log warn;
            events { worker_connections 256; }
            http {
                access_log \(root)/access.log;
                log_format upstreams '$request_method $request_uri $status $upstream_addr';
                access_log \(root)/upstreams.log upstreams;
                upstream servers {
                    \(upstreams.map { "server 127.0.0.1:\($0);" }.joined(separator: "\n                    "))
                }
                client_body_temp_path \(root)/body;
                proxy_temp_path \(root)/proxy;
                fastcgi_temp_path \(root)/fastcgi;
                uwsgi_temp_path \(root)/uwsgi;
                scgi_temp_path \(root)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    \(server)
                    location / {
                        proxy_pass http://servers;
                        proxy_set_header Host $http_host;
                        \(location)
                    }
                }
            }
            """
        let path = try folder.write("nginx.conf", config)
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["-p", root, "-c", path, "-e", root + "/error.log"]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        eventuallyBlocking(within: .seconds(10), every: .milliseconds(20)) { Self.accepts(port) || !process.isRunning }
        guard Self.accepts(port) else {
            stop()
            let log = (try? String(contentsOfFile: root + "/error.log", encoding: .utf8)) ?? ""
            throw NSError(domain: "NginxProxy", code: 2, userInfo: [NSLocalizedDescriptionKey: "nginx did not start: \(log)"])
        }
    }

    /// `http://127.0.0.1:<port>` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// What nginx logged: one line per request.
    public var accessLog: String { (try? String(contentsOfFile: folder.path + "/access.log", encoding: .utf8)) ?? "" }

    /// Which server answered each request: one line per request, `METHOD URI STATUS ADDRESS`
    /// (`ADDRESS` lists every server tried, `, ` between them; `-` when nginx answered itself).
    public var upstreamLog: String { (try? String(contentsOfFile: folder.path + "/upstreams.log", encoding: .utf8)) ?? "" }

    /// Stops nginx by its PID and removes its folder. SIGKILL: a test runner's threads block
    /// SIGTERM, and nginx started from one inherits that; it keeps nothing worth a clean stop.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        folder.remove()
    }

    /// A port nothing listens on now, for a server that must know nginx's port before nginx starts.
    public static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw NSError(domain: "NginxProxy", code: 3, userInfo: [NSLocalizedDescriptionKey: "no free port"]) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(_ port: Int) -> Bool {
        (try? RawConnection(port: port)) != nil
    }
}
