@testable import Postgres
import XCTest

final class PostgresAddressTests: XCTestCase {
    func testReadsEveryPart() throws {
        let address = try PostgresAddress(parsing: "postgresql://pipe%40line:s3cr%2Ft@db.example:6543/state%20db?sslmode=verify-full&connect_timeout=5")
        XCTAssertEqual(address.user, "pipe@line")
        XCTAssertEqual(address.password, "s3cr/t")
        XCTAssertEqual(address.host, "db.example")
        XCTAssertEqual(address.port, 6543)
        XCTAssertEqual(address.database, "state db")
        XCTAssertEqual(address.sslMode, "verify-full")
        XCTAssertEqual(address.connectTimeout, 5)
        XCTAssertEqual(address.redacted, "postgres://pipe%40line:***@db.example:6543/state%20db?sslmode=verify-full&connect_timeout=5")
    }

    func testDefaultsAndOtherHosts() throws {
        let plain = try PostgresAddress(parsing: "postgres://127.0.0.1/pipeline")
        XCTAssertNil(plain.user)
        XCTAssertNil(plain.password)
        XCTAssertEqual(plain.port, 5432)
        XCTAssertEqual(plain.connectTimeout, 10)
        XCTAssertEqual(plain.redacted, "postgres://127.0.0.1:5432/pipeline")
        let ipv6 = try PostgresAddress(parsing: "postgres://u@[::1]:5433/db")
        XCTAssertEqual(ipv6.host, "::1")
        XCTAssertEqual(ipv6.port, 5433)
        XCTAssertEqual(ipv6.redacted, "postgres://u@[::1]:5433/db")
        let socket = try PostgresAddress(parsing: "postgres://u@%2Fvar%2Frun%2Fpostgresql/db")
        XCTAssertEqual(socket.host, "/var/run/postgresql")
        // A password may hold an @ or a : unescaped: the last @ ends it.
        let odd = try PostgresAddress(parsing: "postgres://u:p@ss:w@h/db")
        XCTAssertEqual(odd.password, "p@ss:w")
        XCTAssertEqual(odd.host, "h")
    }

    func testRefusesWhatIsWrongWithAnExample() {
        let cases: [(String, String)] = [
            ("http://u:hunter2@h/db", "does not start with postgres://"),
            ("postgres://u:hunter2@h", "names no database"),
            ("postgres://u:hunter2@h/", "names no database"),
            ("postgres://u:hunter2@:5432/db", "names no host"),
            ("postgres://u:hunter2@h:99999/db", "port must be a number"),
            ("postgres://u:hunter2/db", "port must be a number"),  // no @: the password reads as a port, and is not shown
            ("postgres://u:hunter2@h/db?sslmode=sometimes", "sslmode must be one of"),
            ("postgres://u:hunter2@h/db?connect_timeout=soon", "connect_timeout must be"),
            ("postgres://u:hunter2@h/db?password=x", "parameter this program does not know"),
            ("postgres://u:hunter2%zz@h/db", "the password has a %"),
            ("postgres://u:hunter2@[::1/db", "lacks its closing ]"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try PostgresAddress(parsing: text), text) { error in
                let error = error as? PostgresError
                XCTAssertEqual(error?.kind, .invalidAddress, text)
                let message = error.map(String.init(describing:)) ?? ""
                XCTAssertTrue(message.contains(reason), "\(text): \(message)")
                XCTAssertTrue(message.contains(PostgresAddress.example), message)
                XCTAssertFalse(message.contains("hunter2"), message)
            }
        }
    }

    func testThePasswordAppearsNowhere() throws {
        let address = try PostgresAddress(parsing: "postgres://pipeline:hunter2@127.0.0.1:5432/state")
        XCTAssertEqual("\(address)", "postgres://pipeline:***@127.0.0.1:5432/state")
        XCTAssertEqual(String(reflecting: address), "postgres://pipeline:***@127.0.0.1:5432/state")
        var dumped = ""
        dump(address, to: &dumped)
        XCTAssertFalse(dumped.contains("hunter2"), dumped)
        XCTAssertFalse("\([address])".contains("hunter2"))
        XCTAssertEqual(address.scrubbed("password \"hunter2\" refused"), "password \"***\" refused")
    }

    func testTheOperationIsTheStatementsFirstWords() {
        XCTAssertEqual(PostgresError.operation(of: "INSERT INTO uploads (id, secret) VALUES ($1, $2)"), "INSERT INTO uploads")
        XCTAssertEqual(PostgresError.operation(of: "  SELECT pg_notify($1, $2)"), "SELECT pg_notify")
        XCTAssertEqual(PostgresError.operation(of: "UPDATE t SET secret = 'hunter2'"), "UPDATE t SET")
        XCTAssertEqual(PostgresError.operation(of: "SELECT 'hunter2'"), "SELECT")
        XCTAssertEqual(PostgresError.operation(of: "LISTEN \"jobs\""), "LISTEN")
        XCTAssertEqual(PostgresError.operation(of: " "), "an empty statement")
    }
}
