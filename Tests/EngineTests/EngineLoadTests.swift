import APIClients
import Foundation
import HTTPClient
import Basics
import EngineTestSupport
import TestSupport
import Client
import XCTest

/// Many clients at once: nothing is lost, every byte and hash checks out. Bounded in count and
/// time, on 127.0.0.1 only.
final class EngineLoadTests: XCTestCase {
    func test64ConcurrentUploadsAnd200Assemblies() async throws {
        // Every client here is one address: lift the per-client cap that guards a real server.
        let server = try EngineTestServer(perClientLimit: 1024)
        defer { server.stop() }
        let files = try TemporaryDirectory()
        defer { files.remove() }
        var contents: [String: Data] = [:]
        var generator = SystemRandomNumberGenerator()
        for index in 0..<64 {
            let size = 1_000 + Int(generator.next() % 200_000)
            let data = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
            contents[try files.write("u\(index).bin", data: data)] = data
        }
        let options = UploadOptions(parallel: 64, stateDirectory: files.path + "/state")
        let uploader = TusUploader(endpoint: server.endpoint, options: options, http: HTTPClient())
        let paths = contents.keys.sorted()
        let results = try await uploader.upload(paths.map { UploadFile(path: $0, metadata: ["filename": "f"]) }) { _ in }
        for (path, result) in zip(paths, results) {
            XCTAssertEqual(try server.storedBytes(of: try result.get().url), contents[path], path)
        }

        let client = EngineClient(server: server)
        let steps = JSONValue.object(["hash": .object(["robot": .string("/file/hash"), "use": .string(":original")])])
        let ids = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for index in 0..<200 {
                group.addTask {
                    let body = Data("assembly \(index) \(UUID().uuidString)".utf8)
                    let created = try await client.create(steps: steps, files: [("file", "f\(index).txt", body)])
                    return (created.body["assembly_id"]?.stringValue ?? "", FileHashing.sha256(body))
                }
            }
            var all: [(String, String)] = []
            for try await pair in group { all.append(pair) }
            return all
        }
        XCTAssertEqual(Set(ids.map(\.0)).count, 200, "200 distinct Assemblies")
        for (id, hash) in ids {
            let status = try await client.wait(id)
            XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), id)
            XCTAssertEqual(status["results"]?["hash"]?.arrayValue?.first?["meta"]?["hash"], .string(hash), id)
        }
    }
}
