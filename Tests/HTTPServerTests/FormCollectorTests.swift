import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import XCTest

/// Forms (`FormCollector`): capped fields, and refused forms that store nothing.
final class FormCollectorTests: HTTPServerTestCase {
    func testFormFieldsAreCappedAndAnsweredWithoutBufferingTheRest() async throws {
        let server = try start()
        defer { server.stop() }
        let body = "token=ok&params=" + String(repeating: "a", count: 3 << 20)
        let response = try await HTTPClient().send(HTTPRequest(
            method: "POST", url: "http://127.0.0.1:\(server.port)/form",
            headers: [("Content-Type", "application/x-www-form-urlencoded")], body: .data(Data(body.utf8))))
        XCTAssertEqual(response.status, 413)
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("fields are larger than 1024 KiB"))
    }

    func testARefusedFormStoresNoFileAndAnAcceptedOneLeavesNothingBehind() async throws {
        let server = try start()
        defer { server.stop() }
        let file = Data(repeating: 7, count: 2 << 20)
        let refused = try await postForm(server, fields: [("token", "bad")], file: file)
        XCTAssertEqual(refused.status, 403)
        let accepted = try await postForm(server, fields: [("token", "ok")], file: file)
        XCTAssertEqual(accepted.status, 200)
        XCTAssertEqual(String(decoding: accepted.body, as: UTF8.self), #"{"fields":1,"files":1}"#)
        let filesFirst = try await postForm(server, fields: [], file: file, trailingFields: [("token", "ok")])
        XCTAssertEqual(filesFirst.status, 403, "fields sent after the file cannot admit it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/form"), "temporary files were left behind")
    }

    private func postForm(
        _ server: HTTPServer, fields: [(String, String)], file: Data, trailingFields: [(String, String)] = []
    ) async throws -> HTTPResponse {
        let boundary = "----limits-\(UUID().uuidString)"
        var body = Data()
        func field(_ name: String, _ value: String) {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        for (name, value) in fields { field(name, value) }
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8))
        body.append(file)
        body.append(Data("\r\n".utf8))
        for (name, value) in trailingFields { field(name, value) }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return try await HTTPClient().send(HTTPRequest(
            method: "POST", url: "http://127.0.0.1:\(server.port)/form",
            headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")], body: .data(body)))
    }
}
