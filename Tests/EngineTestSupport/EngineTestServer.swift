import Basics
import Engine
import TestSupport
import Foundation
import Synchronization
import HTTPServer
import Spec

/// The engine of `pipeline serve`, started in-process on an ephemeral port for a test.
public final class EngineTestServer: TusTestServer, @unchecked Sendable {
    /// The engine's data folder.
    public let data: TemporaryDirectory
    /// The running engine.
    public let engine: LocalEngine
    private let logged = RequestLog()

    /// What the retention sweeps said.
    public var retentionLines: [String] { logged.retention.withLock { $0 } }

    /// Every request answered so far, as `METHOD path status ms`.
    public var requests: [String] { logged.lines.withLock { $0 } }

    /// Starts an engine with a fresh data folder (or `data`, to restart on old state).
    public init(
        data: TemporaryDirectory? = nil, credentials: (key: String, secret: String)? = nil, rateLimit: (count: Int, window: TimeInterval)? = nil,
        port: UInt16 = 0, reservedSpace: Int64? = nil, perClientLimit: Int? = nil, policy: Policy? = nil,
        robotLimits: RobotLimits = RobotLimits(), trustProxy: Bool = true, notifyRetryDelays: [Duration]? = nil,
        namesDataRelatively: Bool = false, clock: any MonotonicClock = SystemClock(), storage: StorageCredentials = .none,
        retention: EngineRetention? = nil, uploadLifetime: TimeInterval? = nil
    ) throws {
        self.data = try data ?? TemporaryDirectory(prefix: "engine")
        // `namesDataRelatively`: the folder as `pipeline serve --data-dir ./engine` names it.
        let folder = namesDataRelatively ? RealPath.relative(self.data.path, from: FileManager.default.currentDirectoryPath) : self.data.path
        var configuration = LocalEngine.Configuration(dataDirectory: folder, credentials: credentials, policy: policy)
        configuration.rateLimit = rateLimit
        configuration.clock = clock
        configuration.robotLimits = robotLimits
        configuration.storage = storage
        configuration.retention = retention
        let said = logged
        configuration.retentionLog = { line in said.retention.withLock { $0.append(line) } }
        if let uploadLifetime { configuration.uploadLifetime = uploadLifetime }
        if let notifyRetryDelays { configuration.notifyRetryDelays = notifyRetryDelays }
        // The fault-injecting proxy passes chunked bodies through as they are: trailers arrive.
        configuration.trailersBehindProxy = true
        if let reservedSpace { configuration.reservedSpace = reservedSpace }
        // Trusts X-Forwarded-Host, as set by the fault-injecting proxy some tests put in front (and
        // then offers no same-machine handoff: a client behind a proxy may be elsewhere).
        var server = HTTPServer.Configuration(port: port, origin: PublicOrigin(trustProxy: trustProxy))
        if let perClientLimit { server.perClientLimit = perClientLimit }
        let logged = self.logged
        engine = try LocalEngine(configuration, server: server, log: { line in logged.lines.withLock { $0.append(line) } })
    }

    /// The tus creation endpoint.
    public var endpoint: String { "http://127.0.0.1:\(engine.port)\(LocalEngine.tusPath)" }

    /// The port.
    public var port: Int { Int(engine.port) }

    /// The bytes stored for the upload at `url`.
    public func storedBytes(of url: String) throws -> Data {
        let id = url.split(separator: "/").last.map(String.init) ?? ""
        return try Data(contentsOf: URL(fileURLWithPath: data.path + "/uploads/" + id + ".bin"))
    }

    /// Uploads created so far.
    public func createdUploads() -> Int { fileNames(in: data.path + "/uploads").filter { $0.hasSuffix(".bin") }.count }

    /// The largest upload so far.
    public func largestStoredSize() -> Int { largestFile(in: data.path + "/uploads") { $0.hasSuffix(".bin") } }

    /// Stops the engine and removes its data (unless `keepData`).
    public func stop() { stop(keepData: false) }

    /// Stops the engine; its data stays for a restart when `keepData`.
    public func stop(keepData: Bool) {
        engine.stop()
        if !keepData { data.remove() }
    }
}

/// The lines an engine logs, one per request.
private final class RequestLog: Sendable {
    let lines = Mutex<[String]>([])
    let retention = Mutex<[String]>([])
}
