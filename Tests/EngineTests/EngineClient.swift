import Basics
import Client
import Foundation
import HTTPClient
import EngineTestSupport
import TestSupport
import Wire

/// Talks to an in-process engine the way an SDK does: signed multipart creates, status polls.
struct EngineClient {
    let server: EngineTestServer
    let http = HTTPClient()
    var credentials: (key: String, secret: String)?

    var base: String { "http://127.0.0.1:\(server.port)" }

    /// Creates an Assembly; `files` are (field, name, bytes) sent as multipart parts.
    func create(
        steps: JSONValue, id: String? = nil, fields: [String: String] = [:], expectedUploads: Int? = nil,
        files: [(String, String, Data)] = [], signature: String? = nil, params override: String? = nil, filesFirst: Bool = false,
        headers extraHeaders: [(name: String, value: String)] = []
    ) async throws -> (status: Int, body: JSONValue) {
        var params: [String: JSONValue] = ["steps": steps]
        if let credentials {
            params = AuthParams.prepare(.object(params), key: credentials.key, lifetime: .seconds(600)).objectValue ?? params
        }
        let text = override ?? JSONValue.object(params).serialized()
        var form: [(String, String?, Data)] = [("params", nil, Data(text.utf8))]
        if let credentials { form.append(("signature", nil, Data((signature ?? Signature.sign(text, secret: credentials.secret)).utf8))) }
        if let expectedUploads { form.append(("tus_num_expected_upload_files", nil, Data(String(expectedUploads).utf8))) }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { form.append((name, nil, Data(value.utf8))) }
        let parts = files.map { (field, name, data) in (field, Optional(name), data) }
        form = filesFirst ? parts + form : form + parts
        let boundary = "----pipeline-test-\(UUID().uuidString)"
        var body = Data()
        for (name, filename, data) in form {
            var disposition = "Content-Disposition: form-data; name=\"\(name)\""
            if let filename { disposition += "; filename=\"\(filename)\"\r\nContent-Type: application/octet-stream" }
            body.append(Data("--\(boundary)\r\n\(disposition)\r\n\r\n".utf8))
            body.append(data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        let url = base + "/assemblies" + (id.map { "/" + $0 } ?? "")
        let response = try await http.send(HTTPRequest(
            method: "POST", url: url, headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")] + extraHeaders, body: .data(body)))
        return (response.status, try JSONValue.parse(response.body))
    }

    /// Polls an Assembly until it is no longer uploading or executing.
    func wait(_ id: String, timeout: Duration = .seconds(30)) async throws -> JSONValue {
        let ended = try await firstAnswer(within: timeout) { () async throws -> JSONValue? in
            let status = try await self.status(id)
            let ok = status["ok"]?.stringValue ?? ""
            return status["error"] != nil || !["ASSEMBLY_UPLOADING", "ASSEMBLY_EXECUTING"].contains(ok) ? status : nil
        }
        if let ended { return ended }
        return try await status(id)
    }

    func status(_ id: String) async throws -> JSONValue {
        let response = try await http.send(HTTPRequest(method: "GET", url: base + "/assemblies/" + id))
        return try JSONValue.parse(response.body)
    }

    func download(_ url: String) async throws -> HTTPResponse {
        try await http.send(HTTPRequest(method: "GET", url: url, maxResponseBytes: 64 << 20))
    }
}
