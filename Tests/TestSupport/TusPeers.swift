import Foundation
import XCTest

/// The third-party tus server (litestar-tus, from PyPI) and a fault-injecting proxy, started on
/// 127.0.0.1 for a test and stopped with it.
public final class TusPeers: @unchecked Sendable {
    /// The folder the server stores uploads in (`<store>/<upload id>` holds the bytes).
    public let store: TemporaryDirectory
    /// The tus server.
    public let server: ServerProcess
    /// The proxy in front of it, when faults were asked for.
    public private(set) var proxy: ServerProcess?

    /// Starts litestar-tus; fails (in CI) or skips (elsewhere) when scripts/setup.sh has not installed it.
    public init() throws {
        let python = PackageRoot.path + "/.venv-tus/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                throw NSError(domain: "TusPeers", code: 1, userInfo: [NSLocalizedDescriptionKey: "litestar-tus is missing: scripts/setup.sh must install it"])
            }
            throw XCTSkip("litestar-tus is not installed; run scripts/setup.sh")
        }
        store = try TemporaryDirectory(prefix: "tus-store")
        server = try ServerProcess(python, [Self.fixture("litestar_tus_server.py"), store.path])
    }

    /// The server's creation endpoint.
    public var endpoint: String { server.url("/files/") }

    /// Starts a proxy with fault rules (`PATCH:1:drop=1048576`, `HEAD:1:status=404`) and
    /// returns its creation endpoint.
    public func faultyEndpoint(_ rules: [String]) throws -> String {
        let proxy = try ServerProcess("/usr/bin/env", ["python3", Self.fixture("fault_proxy.py"), String(server.port)] + rules)
        self.proxy = proxy
        return proxy.url("/files/")
    }

    /// The bytes the server stored for the upload at `url`.
    public func storedBytes(of url: String) throws -> Data {
        let id = url.split(separator: "/").last.map(String.init) ?? ""
        return try Data(contentsOf: URL(fileURLWithPath: store.path + "/" + id))
    }

    /// Stops both processes and removes the store.
    public func stop() {
        proxy?.stop()
        server.stop()
        store.remove()
    }

    private static func fixture(_ name: String) -> String {
        PackageRoot.path + "/Tests/TusTests/Fixtures/" + name
    }
}
