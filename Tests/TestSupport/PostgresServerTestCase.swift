import Foundation
import Synchronization
import XCTest

/// A test class whose tests share one Postgres server, started before the class's first test and
/// stopped after its last; each test makes the databases it needs (`makeDatabase`). A server that
/// cannot start fails every test (or skips it, outside CI, when Postgres is not installed).
open class PostgresServerTestCase: XCTestCase {
    private static let servers = ServersByClass<PostgresTestServer>()
    /// Databases made so far in this process, for unique names.
    private static let made = Atomic<Int>(0)

    override open class func setUp() {
        super.setUp()
        servers.start(for: self) {
            let started = try PostgresTestServer()
            print("postgres: \(self)'s server started in \(started.startup)")
            return started
        }
    }

    override open class func tearDown() {
        servers.stop(for: self) { $0.stop() }
        super.tearDown()
    }

    override open func setUpWithError() throws {
        try super.setUpWithError()
        _ = try postgres
    }

    /// The class's server.
    public var postgres: PostgresTestServer {
        get throws { try Self.servers.server(for: type(of: self)) }
    }

    /// A new empty database for the running test; its URL.
    public func makeDatabase() throws -> String {
        let number = Self.made.add(1, ordering: .relaxed).newValue
        let test = name.split(separator: " ").last.map { $0.filter { $0.isLetter || $0.isNumber } } ?? "test"
        return try postgres.makeDatabase("\(test.lowercased().prefix(40))_\(number)")
    }
}
