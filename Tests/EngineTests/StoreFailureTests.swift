@testable import Engine
import Basics
import Foundation
import Synchronization
import TestSupport
import XCTest

/// A data folder that cannot be written: the engine says so instead of answering as if it kept
/// what it was given (a restart would have lost it).
final class StoreFailureTests: XCTestCase {
    /// A store's folder replaced by a plain file after it was opened: every write fails, even as root.
    private func unwritable(_ name: String, in data: TemporaryDirectory) throws -> String {
        let folder = data.path + "/" + name
        try FileManager.default.removeItem(atPath: folder)
        try data.write(name, "not a folder")
        return folder
    }

    func testATemplateThatCannotBeSavedIsNeitherKeptNorAcknowledged() throws {
        let data = try TemporaryDirectory(prefix: "store-failure")
        defer { data.remove() }
        let store = try TemplateStore(directory: data.path + "/templates")
        _ = try unwritable("templates", in: data)
        guard case .failure(.notSaved(let reason)) = store.create(name: "thumbs", content: .object([:]), requireSignatureAuth: false) else {
            return XCTFail("a Template that could not be written was acknowledged")
        }
        XCTAssertFalse(reason.isEmpty)
        XCTAssertTrue(store.all.isEmpty, "not kept in memory either")
    }

    func testAnAssemblyThatCannotBeSavedIsRefusedAndALaterChangeIsReported() throws {
        let data = try TemporaryDirectory(prefix: "store-failure")
        defer { data.remove() }
        let warnings = Mutex<[String]>([])
        let store = try AssemblyStore(directory: data.path + "/assemblies", warn: { message in warnings.withLock { $0.append(message) } })
        func record(_ id: String) -> AssemblyRecord {
            AssemblyRecord(id: id, origin: "http://127.0.0.1:1", params: "{}", steps: .object([:]), fields: [:], notifyURL: nil,
                           expectedTusUploads: 1, uploads: [], created: Date(), clientAgent: nil)
        }
        let kept = String(repeating: "a", count: 32), refused = String(repeating: "b", count: 32)
        XCTAssertTrue(try store.insert(record(kept)))
        _ = try unwritable("assemblies", in: data)
        XCTAssertThrowsError(try store.insert(record(refused)))
        XCTAssertNil(store.get(refused))
        store.update(kept) { _ = $0.apply(.cancel) }
        store.flush()
        XCTAssertEqual(warnings.withLock { $0 }.count, 1, "\(warnings.withLock { $0 })")
        XCTAssertTrue(warnings.withLock { $0 }.first?.contains("Assembly \(kept) could not be saved") == true)
    }
}

/// The store's end observer is called once per Assembly that ends, for as long as the engine runs.
final class EndObserverTests: XCTestCase {
    func testTheEndObserverCanBeCalledForAYearOfAssemblies() throws {
        let data = try TemporaryDirectory(prefix: "end-observer")
        defer { data.remove() }
        let store = try AssemblyStore(directory: data.path + "/assemblies")
        let heard = Atomic<Int>(0)
        store.observeEnds { _ in heard.add(1, ordering: .relaxed) }
        let record = AssemblyRecord(id: String(repeating: "e", count: 32), origin: "http://127.0.0.1:1", params: "{}", steps: .object([:]), fields: [:],
                                    notifyURL: nil, expectedTusUploads: 0, uploads: [], created: Date(), clientAgent: nil)
        // A function held by the Mutex directly nested two thunks per call, and overflowed the stack after ~10,000.
        for _ in 0..<300_000 { store.tellEnded(record) }
        XCTAssertEqual(heard.load(ordering: .relaxed), 300_000)
    }
}
