import Basics
import EngineTestSupport
import Foundation
import TestSupport
import XCTest

/// `/document/thumbs` on a PDF written by the test; the images are measured with ffprobe.
final class DocumentThumbsTests: XCTestCase {
    /// A PDF whose pages are `sizes` points wide and high, each with a filled square.
    static func pdf(pages sizes: [(Int, Int)]) -> Data {
        var objects = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
        var kids: [String] = []
        for (width, height) in sizes {
            let content = "0 0 1 rg 10 10 30 30 re f"
            objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Contents \(objects.count) 0 R >>")
            kids.append("\(objects.count) 0 R")
        }
        objects[1] = "<< /Type /Pages /Kids [\(kids.joined(separator: " "))] /Count \(sizes.count) >>"
        var text = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(text.utf8.count)
            text += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let table = text.utf8.count
        text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n" + offsets.map { String(format: "%010d 00000 n \n", $0) }.joined()
        text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(table)\n%%EOF\n"
        return Data(text.utf8)
    }

    private func run(_ options: [String: JSONValue], file: (String, Data)) async throws -> (JSONValue, EngineClient, EngineTestServer) {
        let server = try EngineTestServer()
        let client = EngineClient(server: server)
        let step = JSONValue.object(options.merging(["robot": .string("/document/thumbs"), "use": .string(":original")]) { _, new in new })
        let created = try await client.create(steps: .object(["pages": step]), files: [("file", file.0, file.1)])
        return (try await client.wait(try XCTUnwrap(created.body["assembly_id"]?.stringValue)), client, server)
    }

    private func size(of data: Data) throws -> (Int?, Int?) {
        let directory = try TemporaryDirectory(prefix: "thumbs")
        defer { directory.remove() }
        let path = try directory.write("page.img", data: data)
        let outcome = try ChildProcess.runBlocking(["ffprobe", "-v", "error", "-print_format", "json", "-show_streams", path], timeout: .seconds(30))
        let stream = try JSONValue.parse(Data(outcome.stdout.utf8))["streams"]?.arrayValue?.first
        return (stream?["width"]?.intValue, stream?["height"]?.intValue)
    }

    func testEveryPageOrOnePageAtItsSize() async throws {
        let document = Self.pdf(pages: [(200, 100), (100, 200)])
        let (all, client, server) = try await run([:], file: ("report.pdf", document))
        defer { server.stop() }
        XCTAssertEqual(all["ok"], .string("ASSEMBLY_COMPLETED"), all.serialized())
        XCTAssertEqual(all["uploads"]?.arrayValue?.first?["meta"], .object(["page_count": .int(2), "width": .int(200), "height": .int(100)]))
        let pages = try XCTUnwrap(all["results"]?["pages"]?.arrayValue)
        XCTAssertEqual(pages.map { $0["name"] }, [.string("report_1.png"), .string("report_2.png")])
        XCTAssertEqual(pages.map { $0["meta"]?["page_number"] }, [.int(1), .int(2)])
        let first = try size(of: try await client.download(try XCTUnwrap(pages[0]["ssl_url"]?.stringValue)).body)
        let second = try size(of: try await client.download(try XCTUnwrap(pages[1]["ssl_url"]?.stringValue)).body)
        XCTAssertEqual(first.0, 200)
        XCTAssertEqual(first.1, 100)
        XCTAssertEqual(second.0, 100)
        XCTAssertEqual(second.1, 200)

        let (one, oneClient, oneServer) = try await run(["page": .int(2), "width": .int(50), "height": .int(50), "resize_strategy": .string("fit"), "format": .string("jpg")],
                                                          file: ("report.pdf", document))
        defer { oneServer.stop() }
        let only = try XCTUnwrap(one["results"]?["pages"]?.arrayValue)
        XCTAssertEqual(only.map { $0["name"] }, [.string("report_2.jpg")])
        let measured = try size(of: try await oneClient.download(try XCTUnwrap(only.first?["ssl_url"]?.stringValue)).body)
        XCTAssertEqual(measured.0, 25)
        XCTAssertEqual(measured.1, 50)
    }

    func testMissingPagesHugePagesAndNonDocumentsFailByName() async throws {
        let cases: [([String: JSONValue], (String, Data), String)] = [
            (["page": .int(3)], ("report.pdf", Self.pdf(pages: [(100, 100)])), "'report.pdf' has 1 pages, not 3"),
            ([:], ("huge.pdf", Self.pdf(pages: [(14_000, 14_000)])), "'huge.pdf' is 14000x14000 pixels"),
            ([:], ("notes.pdf", Data("no pdf".utf8)), "'notes.pdf' is not a PDF document"),
        ]
        for (options, file, message) in cases {
            let (status, _, server) = try await run(options, file: file)
            server.stop()
            XCTAssertNotNil(status["error"], status.serialized())
            XCTAssertTrue(status["message"]?.stringValue?.contains(message) == true, "\(status["message"] ?? .null)")
        }
    }
}
