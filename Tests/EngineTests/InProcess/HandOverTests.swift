@testable import Engine
import APIClients
import Basics
import Crypto
import Foundation
import TestSupport
import Wire
import XCTest

/// A file handed over in process is the file that was opened: its inode is linked into the
/// Assembly, so what its path leads to afterwards is never read; a file outside the project
/// (a link put in its place) is refused; a write to it before or during the steps fails them.
final class HandOverTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private var engine: LocalEngine!

    override func setUpWithError() throws {
        folder = try TemporaryDirectory()
        engine = try LocalEngine.embedded(LocalEngine.Configuration(dataDirectory: folder.path + "/project/.pipeline/engine"))
    }

    override func tearDown() {
        engine.stop()
        folder.remove()
    }

    private static let hash: JSONValue = .object(["hash": .object(["robot": .string("/file/hash"), "use": .string(":original")])])

    /// An Assembly of the hash step expecting `count` files: its status.
    private func created(expecting count: Int) async throws -> AssemblyState {
        try await engine.services.assemblies.create(
            id: RandomID.hex32(), params: JSONValue.object(["steps": Self.hash]).serialized(), signature: nil, expectedUploads: count)
    }

    /// Hands `path` over as file `index`, confined to the project.
    private func hand(_ path: String, _ index: Int, to created: AssemblyState) async throws -> Result<UploadResult, any Error> {
        var options = UploadOptions()
        options.confinedTo = folder.path + "/project"
        let file = UploadFile(
            path: path, metadata: ["fieldname": "file_\(index)", "filename": (path as NSString).lastPathComponent])
        return try await engine.services.uploads.upload([file], to: try XCTUnwrap(created.tusURL), for: try XCTUnwrap(created.reference), options: options, progress: { _ in })[0]
    }

    private func finished(_ created: AssemblyState) async throws -> AssemblyState {
        let reference = try XCTUnwrap(created.reference)
        var state = try await engine.services.assemblies.status(reference, wait: 20)
        while state.isBusy { state = try await engine.services.assemblies.status(reference, wait: 20) }
        return state
    }

    func testWhatThePathLeadsToAfterTheHandOverIsNeverRead() async throws {
        let source = try folder.write("project/a.txt", "the planned bytes")
        let secret = try folder.write("outside/secret.txt", "not for any Assembly")
        let assembly = try await created(expecting: 2)
        _ = try await hand(source, 0, to: assembly).get()
        // The path now leads elsewhere: a link to a file outside the project.
        try FileManager.default.removeItem(atPath: source)
        try FileManager.default.createSymbolicLink(atPath: source, withDestinationPath: secret)
        _ = try await hand(try folder.write("project/b.txt", "another"), 1, to: assembly).get()
        let state = try await finished(assembly)
        let result = try XCTUnwrap(state.results["hash"]?.first { $0.name == "a.txt" }?.url)
        XCTAssertEqual(try String(contentsOfFile: try XCTUnwrap(URL(string: result)?.path), encoding: .utf8), "the planned bytes")
    }

    func testALinkOutOfTheProjectIsRefusedAndSaysNothingOfItsTarget() async throws {
        let secret = try folder.write("outside/secret.txt", "not for any Assembly, 39 bytes long....")
        try FileManager.default.createDirectory(atPath: folder.path + "/project", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/project/a.txt", withDestinationPath: secret)
        let outcome = try await hand(folder.path + "/project/a.txt", 0, to: try await created(expecting: 1))
        guard case .failure(let error) = outcome else { return XCTFail("a file outside the project was handed over") }
        let message = "\(error)"
        XCTAssertTrue(message.contains("not a file of the project"), message)
        XCTAssertFalse(message.contains("secret") || message.contains("39"), message)
    }

    func testAWriteAfterTheHandOverFailsTheAssembly() async throws {
        let source = try folder.write("project/a.txt", "version one")
        let assembly = try await created(expecting: 2)
        _ = try await hand(source, 0, to: assembly).get()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(" and more".utf8))
        try handle.close()
        _ = try await hand(try folder.write("project/b.txt", "another"), 1, to: assembly).get()
        let reference = try XCTUnwrap(assembly.reference)
        var outcome: AssemblyClient.Failure?
        do throws(AssemblyClient.Failure) {
            var state = try await engine.services.assemblies.status(reference, wait: 20)
            while state.isBusy { state = try await engine.services.assemblies.status(reference, wait: 20) }
        } catch {
            outcome = error
        }
        XCTAssertEqual(outcome?.code, .fileChanged, "a file written to after it was handed over was processed")
    }
}
