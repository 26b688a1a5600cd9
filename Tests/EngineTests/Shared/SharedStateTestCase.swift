@testable import Engine
import Basics
import Foundation
import Postgres
import TestSupport
import XCTest

/// A test class over one Postgres server, whose tests open engines' shared state on a fresh
/// database each (`engines`), stopped after the test.
class SharedStateTestCase: PostgresServerTestCase {
    private var opened: [SharedState] = []
    private var folders: [TemporaryDirectory] = []

    override func tearDown() {
        for state in opened { state.stop() }
        for folder in folders { folder.remove() }
        (opened, folders) = ([], [])
        super.tearDown()
    }

    /// `count` engines' shared state on one new database, each listening.
    func engines(_ count: Int) throws -> [SharedState] {
        let address = try PostgresAddress(parsing: try makeDatabase())
        let states = try (0..<count).map { _ in try SharedState(address: address, connections: 4, warn: { _ in }) }
        for state in states { state.start() }
        opened += states
        return states
    }

    /// A folder for an engine's local copies, removed after the test.
    func folder() throws -> String {
        let made = try TemporaryDirectory(prefix: "shared")
        folders.append(made)
        return made.path
    }

    /// An uploading Assembly `id` with one file at `path`.
    func record(_ id: String, file path: String, phase executing: Bool = false) -> AssemblyRecord {
        let upload = FileFacts.describe(id: AssemblyFile.newID(), name: "a.txt", field: "file", path: path, size: 4, mime: "text/plain", isTus: false, facts: false)
        return AssemblyRecord(
            id: id, origin: "http://127.0.0.1:1", params: "{}", steps: .object([:]), fields: [:], notifyURL: nil,
            expectedTusUploads: executing ? 0 : 1, uploads: [upload], created: Date(), clientAgent: nil)
    }
}
