@testable import Postgres
import TestSupport
import XCTest

final class PostgresConnectTests: XCTestCase {
    func testAClosedPortNamesTheRedactedAddressAndWhatToCheck() throws {
        let port = try NginxProxy.freePort()
        let address = try PostgresAddress(parsing: "postgres://pipeline:hunter2@127.0.0.1:\(port)/state?connect_timeout=2")
        let started = ContinuousClock.now
        XCTAssertThrowsError(try PostgresConnection(address, applicationName: "pipeline-test")) { error in
            let error = error as? PostgresError
            XCTAssertEqual(error?.kind, .connect)
            let message = error.map(String.init(describing:)) ?? ""
            XCTAssertTrue(message.hasPrefix("connect on postgres://pipeline:***@127.0.0.1:\(port)/state?connect_timeout=2: "), message)
            XCTAssertTrue(message.contains("Connection refused"), message)
            XCTAssertTrue(message.contains("is Postgres running and listening on 127.0.0.1 port \(port)?"), message)
            XCTAssertFalse(message.contains("hunter2"), message)
            XCTAssertFalse(message.contains("\n"), message)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "a refused connection fails at once")
    }

    func testAMissingLibpqSaysHowToInstallIt() throws {
        let error = try XCTUnwrap(PostgresLibrary.failure(loading: "libpq-missing.so.5"))
        XCTAssertEqual(error.kind, .libraryMissing)
        let message = String(describing: error)
        XCTAssertTrue(message.hasPrefix("load libpq-missing.so.5: "), message)
        XCTAssertTrue(message.contains("libpq-missing.so.5: cannot open shared object file"), message)
        XCTAssertTrue(message.contains("apt-get install libpq5"), message)
        XCTAssertNil(PostgresLibrary.failure(loading: PostgresLibrary.name), "the real one loads")
    }

    func testALibraryThatIsNotLibpqIsRefused() throws {
        let error = try XCTUnwrap(PostgresLibrary.failure(loading: "libz.so.1"))
        XCTAssertTrue(String(describing: error).contains("not libpq"), String(describing: error))
    }

    func testLibpqsMessagesOfSeveralLinesReadAsOne() {
        XCTAssertEqual(
            PostgresError.oneLine("server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally\n\tbefore or while processing the request.\n"),
            "server closed the connection unexpectedly; This probably means the server terminated abnormally before or while processing the request.")
        XCTAssertEqual(PostgresError.oneLine("FATAL:  no\n\n"), "FATAL:  no")
    }
}
