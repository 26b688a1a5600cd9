import Foundation
import Synchronization
import XCTest

/// A test class whose tests share one Postgres server, started before the class's first test and
/// stopped after its last; each test makes the databases it needs (`makeDatabase`). A server that
/// cannot start fails every test (or skips it, outside CI, when Postgres is not installed).
open class PostgresServerTestCase: XCTestCase {
    /// Each class's server, or why it did not start.
    private static let servers = Mutex<[ObjectIdentifier: Result<PostgresTestServer, any Error>]>([:])
    /// Databases made so far in this process, for unique names.
    private static let made = Atomic<Int>(0)

    override open class func setUp() {
        super.setUp()
        let server = Result { try PostgresTestServer() }
        if case .success(let started) = server { print("postgres: \(self)'s server started in \(started.startup)") }
        servers.withLock { $0[ObjectIdentifier(self)] = server }
    }

    override open class func tearDown() {
        if case .success(let server) = servers.withLock({ $0.removeValue(forKey: ObjectIdentifier(self)) }) { server.stop() }
        super.tearDown()
    }

    override open func setUpWithError() throws {
        try super.setUpWithError()
        _ = try postgres
    }

    /// The class's server.
    public var postgres: PostgresTestServer {
        get throws {
            let server = Self.servers.withLock { $0[ObjectIdentifier(type(of: self))] }
            return try XCTUnwrap(server, "the class's server was not started").get()
        }
    }

    /// A new empty database for the running test; its URL.
    public func makeDatabase() throws -> String {
        let number = Self.made.add(1, ordering: .relaxed).newValue
        let test = name.split(separator: " ").last.map { $0.filter { $0.isLetter || $0.isNumber } } ?? "test"
        return try postgres.makeDatabase("\(test.lowercased().prefix(40))_\(number)")
    }
}
