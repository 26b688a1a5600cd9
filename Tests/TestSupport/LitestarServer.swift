import Foundation
import XCTest

/// The third-party tus server litestar-tus (from PyPI), started on 127.0.0.1 for a test and
/// stopped with it.
public final class LitestarServer: TusTestServer, @unchecked Sendable {
    /// The folder the server stores uploads in (`<store>/<upload id>` holds the bytes).
    public let store: TemporaryDirectory
    /// The tus server.
    public let server: ServerProcess

    /// Starts litestar-tus; fails (in CI) or skips (elsewhere) when scripts/setup.sh has not installed it.
    public init() throws {
        let python = PackageRoot.path + "/.venv-tus/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                throw NSError(domain: "LitestarServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "litestar-tus is missing: scripts/setup.sh must install it"])
            }
            throw XCTSkip("litestar-tus is not installed; run scripts/setup.sh")
        }
        store = try TemporaryDirectory(prefix: "tus-store")
        server = try ServerProcess(python, [Self.fixture("litestar_tus_server.py"), store.path])
    }

    /// The server's creation endpoint.
    public var endpoint: String { server.url("/files/") }

    /// The server's port.
    public var port: Int { server.port }

    /// Uploads created so far (one data file each).
    public func createdUploads() -> Int { fileNames(in: store.path).filter { !$0.contains(".") }.count }

    /// The largest upload in the store so far.
    public func largestStoredSize() -> Int { largestFile(in: store.path) { !$0.contains(".") } }

    /// The bytes the server stored for the upload at `url`.
    public func storedBytes(of url: String) throws -> Data {
        let id = url.split(separator: "/").last.map(String.init) ?? ""
        return try Data(contentsOf: URL(fileURLWithPath: store.path + "/" + id))
    }

    /// Stops both processes and removes the store.
    public func stop() {
        server.stop()
        store.remove()
    }

    private static func fixture(_ name: String) -> String {
        PackageRoot.path + "/Tests/APIClientsTests/Tus/Fixtures/" + name
    }
}
