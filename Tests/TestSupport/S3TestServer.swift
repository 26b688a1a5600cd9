import Foundation
import XCTest

/// An S3 server on 127.0.0.1 for the storage tests (from `.venv`, which scripts/setup.sh makes):
/// SeaweedFS's `weed mini`, which checks signatures, or moto's, which is fast and checks none.
/// Optionally behind a proxy that answers chosen requests with S3 errors. Stopped by its PID.
public final class S3TestServer: @unchecked Sendable {
    /// Which server.
    public enum Kind: String, Sendable { case seaweedfs = "weed", moto }

    /// The access key the server knows.
    public static let key = "pipeline-test-key"
    /// Its secret.
    public static let secret = "pipeline-test-secret-0123456789"
    /// The bucket every server starts with.
    public static let bucket = "pipeline-test"

    private let folder: TemporaryDirectory
    private let server: ServerProcess
    private var proxy: ServerProcess?
    /// The proxy's request log (one line a request), when there is a proxy.
    public private(set) var proxyLog: String?

    /// Starts a server of `kind` with `buckets` made; fails in CI, skips elsewhere, when setup has not installed it.
    public init(_ kind: Kind, buckets: [String] = [S3TestServer.bucket]) throws {
        _ = try PythonPeers.require(kind == .seaweedfs ? "weed" : "moto_server")
        let python = try PythonPeers.require("python")
        folder = try TemporaryDirectory(prefix: "s3-\(kind.rawValue)")
        server = try ServerProcess(
            python, [Self.fixture("s3_server.py"), kind.rawValue, folder.path, Self.key, Self.secret] + buckets, timeout: 90,
            errors: folder.path + "/server.log")
    }

    /// The server's port.
    public var port: Int { server.port }

    /// `http://127.0.0.1:<port>`: the `host` a step names.
    public var host: String { "http://127.0.0.1:\(port)" }

    /// Starts a proxy in front of the server with `rules` (`PATTERN|COUNT|STATUS|CODE`, see
    /// s3_fault_proxy.py); returns its `host`. A second call replaces the first proxy.
    public func faultProxy(_ rules: [String]) throws -> String {
        proxy?.stop()
        let log = folder.path + "/proxy-\(UUID().uuidString).log"
        proxy = try ServerProcess("/usr/bin/env", ["python3", Self.fixture("s3_fault_proxy.py"), String(port)] + rules, errors: log)
        proxyLog = log
        return "http://127.0.0.1:\(proxy?.port ?? 0)"
    }

    /// The lines the current proxy logged so far.
    public func proxyLines() -> [String] {
        guard let proxyLog, let text = try? String(contentsOfFile: proxyLog, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// Stops the proxy and the server and removes their folder.
    public func stop() {
        proxy?.stop()
        server.stop()
        folder.remove()
    }

    private static func fixture(_ name: String) -> String {
        PackageRoot.path + "/Tests/HTTPClientTests/Fixtures/" + name
    }
}
