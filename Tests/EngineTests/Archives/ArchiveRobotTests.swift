import Basics
import EngineTestSupport
import Foundation
import TestSupport
import XCTest

/// `/file/compress` and `/file/decompress` through the Assembly API; archives are made and read
/// back with Python's zipfile and tarfile, not with the engine's own code.
final class ArchiveRobotTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "archives")
    }

    override func tearDown() { directory.remove() }

    private func python(_ script: String, _ arguments: [String] = []) throws -> String {
        let outcome = try ChildProcess.runBlocking(["python3", "-c", script] + arguments, timeout: .seconds(60))
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return outcome.stdout
    }

    private func run(_ steps: [String: JSONValue], files: [(String, String, Data)]) async throws -> (JSONValue, EngineClient, EngineTestServer) {
        let server = try EngineTestServer()
        let client = EngineClient(server: server)
        let created = try await client.create(steps: .object(steps), files: files)
        XCTAssertEqual(created.status, 200, created.body.serialized())
        return (try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue), timeout: .seconds(60)), client, server)
    }

    private func step(_ robot: String, _ options: [String: JSONValue]) -> JSONValue {
        .object(options.merging(["robot": .string(robot), "use": .string(":original"), "result": .bool(true)]) { _, new in new })
    }

    func testCompressedArchivesHoldEveryFileByLayout() async throws {
        let files = [("a", "notes.txt", Data("alpha".utf8)), ("b", "notes.txt", Data("bravo".utf8)), ("c", "data.bin", Data(repeating: 7, count: 100_000)),
                     ("d", "caf\u{e9} \u{65e5}.txt", Data("unicode".utf8))]
        let (status, client, server) = try await run([
            "zip": step("/file/compress", ["format": .string("zip"), "archive_name": .string("bundle"), "file_layout": .string("simple")]),
            "tgz": step("/file/compress", ["format": .string("tar"), "gzip": .bool(true), "compression_level": .int(-9)]),
        ], files: files)
        defer { server.stop() }
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let zip = try XCTUnwrap(status["results"]?["zip"]?.arrayValue?.first)
        XCTAssertEqual(zip["name"], .string("bundle.zip"))
        XCTAssertEqual(zip["mime"], .string("application/zip"))
        let zipPath = directory.path + "/bundle.zip"
        try await client.download(try XCTUnwrap(zip["ssl_url"]?.stringValue)).body.write(to: URL(fileURLWithPath: zipPath))
        let listed = try python("import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nfor n in sorted(z.namelist()): print(n, len(z.read(n)), z.read(n)[:5])", [zipPath])
        XCTAssertEqual(listed, "caf\u{e9} \u{65e5}.txt 7 b'unico'\ndata.bin 100000 b'\\x07\\x07\\x07\\x07\\x07'\nnotes-2.txt 5 b'bravo'\nnotes.txt 5 b'alpha'\n")

        let tgz = try XCTUnwrap(status["results"]?["tgz"]?.arrayValue?.first)
        XCTAssertEqual(tgz["name"], .string("archive.tar.gz"))
        let tgzPath = directory.path + "/archive.tar.gz"
        try await client.download(try XCTUnwrap(tgz["ssl_url"]?.stringValue)).body.write(to: URL(fileURLWithPath: tgzPath))
        let members = try python("import sys, tarfile\nt = tarfile.open(sys.argv[1], 'r:gz')\nfor m in sorted(t.getmembers(), key=lambda m: m.name): print(m.name, m.size)", [tgzPath])
        XCTAssertEqual(members, "caf\u{e9} \u{65e5}/caf\u{e9} \u{65e5}.txt 7\ndata/data.bin 100000\nnotes/notes-2.txt 5\nnotes/notes.txt 5\n",
                       "advanced: a folder per original upload")
    }

    func testDecompressTakesOnlyRegularFilesInsideTheArchive() async throws {
        let archive = directory.path + "/mixed.zip"
        _ = try python("""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w') as z:
                z.writestr('dir/a.txt', 'alpha')
                z.writestr('./b.txt', 'bravo')
                z.writestr('../escape.txt', 'no')
                z.writestr('/etc/absolute.txt', 'no')
                link = zipfile.ZipInfo('link')
                link.external_attr = 0o120777 << 16
                z.writestr(link, '/etc/passwd')
            """, [archive])
        let tarPath = directory.path + "/plain.tar.gz"
        _ = try python("import sys, tarfile, io\nt = tarfile.open(sys.argv[1], 'w:gz')\ni = tarfile.TarInfo('x/y.txt'); i.size = 3\nt.addfile(i, io.BytesIO(b'xyz'))\nt.close()", [tarPath])
        let (status, client, server) = try await run(["out": step("/file/decompress", [:])], files: [
            ("f", "mixed.zip", try Data(contentsOf: URL(fileURLWithPath: archive))), ("g", "plain.tar.gz", try Data(contentsOf: URL(fileURLWithPath: tarPath))),
        ])
        defer { server.stop() }
        XCTAssertEqual(status["ok"], .string("ASSEMBLY_COMPLETED"), status.serialized())
        let results = try XCTUnwrap(status["results"]?["out"]?.arrayValue)
        XCTAssertEqual(results.map { $0["meta"]?["relative_path"] }, [.string("dir/a.txt"), .string("b.txt"), .string("x/y.txt")])
        XCTAssertEqual(results.map { $0["name"] }, [.string("a.txt"), .string("b.txt"), .string("y.txt")])
        XCTAssertEqual(results.map { $0["original_name"] }, [.string("mixed.zip"), .string("mixed.zip"), .string("plain.tar.gz")])
        let body = try await client.download(try XCTUnwrap(results.first?["ssl_url"]?.stringValue)).body
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "alpha")
    }

    func testArchiveBombsAndNonArchivesFailTheStep() async throws {
        let bomb = directory.path + "/bomb.zip"
        _ = try python("import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z: z.writestr('zeros', b'\\0' * (64 << 20))", [bomb])
        let many = directory.path + "/many.tar"
        _ = try python("""
            import sys, tarfile, io
            with tarfile.open(sys.argv[1], 'w') as t:
                for n in range(10001):
                    i = tarfile.TarInfo(f'f{n}'); i.size = 1
                    t.addfile(i, io.BytesIO(b'x'))
            """, [many])
        let cases: [(String, Data, String)] = [
            ("bomb.zip", try Data(contentsOf: URL(fileURLWithPath: bomb)), "expands to more than"),
            ("many.tar", try Data(contentsOf: URL(fileURLWithPath: many)), "holds more than 10000 files"),
            ("notes.zip", Data("not an archive".utf8), "'notes.zip' is not an archive the local engine reads"),
        ]
        for (name, data, message) in cases {
            let (status, _, server) = try await run(["out": step("/file/decompress", [:])], files: [("f", name, data)])
            let id = try XCTUnwrap(status["assembly_id"]?.stringValue)
            XCTAssertFalse(FileManager.default.fileExists(atPath: server.data.path + "/results/" + id), "\(name): what the failed step wrote is gone")
            server.stop()
            XCTAssertEqual(status["error"], .string("FILE_DECOMPRESS_ERROR"), "\(name): \(status.serialized())")
            let text = status["message"]?.stringValue ?? ""
            XCTAssertTrue(text.contains(message) && text.contains("step 'out' (/file/decompress)"), "\(name): \(text)")
            XCTAssertFalse(text.contains(directory.path) || text.contains("/results/"), "no engine paths: \(text)")
        }
    }
}
