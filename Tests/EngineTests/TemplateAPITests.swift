import Basics
import EngineTestSupport
import Foundation
import HTTPClient
import TestSupport
import Wire
import Spec
import XCTest

/// The engine's Templates API and Assemblies that run a Template.
final class TemplateAPITests: XCTestCase {
    private let hash: JSONValue = .object(["robot": .string("/file/hash"), "use": .string(":original")])

    /// Sends `params` (signed when `credentials`) as a form, or in the query for GET and DELETE.
    private func send(
        _ server: EngineTestServer, _ method: String, _ path: String, _ params: [String: JSONValue] = [:],
        credentials: (key: String, secret: String)? = nil
    ) async throws -> (status: Int, body: JSONValue) {
        var object = params
        if let credentials { object = AuthParams.prepare(.object(params), key: credentials.key, lifetime: .seconds(600)).objectValue ?? params }
        let text = JSONValue.object(object).serialized()
        var fields = [("params", text)]
        if let credentials { fields.append(("signature", Signature.sign(text, secret: credentials.secret))) }
        let encoded = fields.map { "\($0.0)=" + ($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }.joined(separator: "&")
        let base = "http://127.0.0.1:\(server.port)" + path
        let request = ["GET", "DELETE"].contains(method)
            ? HTTPRequest(method: method, url: base + (credentials == nil && params.isEmpty ? "" : "?" + encoded))
            : HTTPRequest(method: method, url: base, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: .data(Data(encoded.utf8)))
        let response = try await HTTPClient().send(request)
        return (response.status, try JSONValue.parse(response.body))
    }

    func testTemplatesAreCreatedListedUpdatedAndDeleted() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        let created = try await send(server, "POST", "/templates", [
            "name": .string("site-thumbs"), "template": .object(["steps": .object(["hash": hash])]), "require_signature_auth": .int(1),
        ])
        XCTAssertEqual(created.status, 200, created.body.serialized())
        XCTAssertEqual(created.body["ok"], .string("TEMPLATE_CREATED"))
        XCTAssertEqual(created.body["require_signature_auth"], .int(1))
        let id = try XCTUnwrap(created.body["id"]?.stringValue)
        // The docs send `template` as JSON text; the SDKs as an object. Both work.
        let second = try await send(server, "POST", "/templates", ["name": .string("second-one"), "template": .string(#"{"steps":{}}"#)])
        XCTAssertEqual(second.status, 200, second.body.serialized())
        let refusals: [([String: JSONValue], String)] = [
            (["name": .string("site-thumbs"), "template": .object(["steps": .object([:])])], "TEMPLATE_NAME_TAKEN"),
            (["name": .string("Bad_Name"), "template": .object(["steps": .object([:])])], "INVALID_TEMPLATE_NAME"),
            (["name": .string("no-steps"), "template": .object([:])], "INVALID_TEMPLATE"),
            (["name": .string("not-json"), "template": .string("{")], "INVALID_TEMPLATE"),
        ]
        for (params, code) in refusals {
            let refused = try await send(server, "POST", "/templates", params)
            XCTAssertEqual(refused.body["error"], .string(code), refused.body.serialized())
        }
        let page = try await send(server, "GET", "/templates?page=2&pagesize=1")
        XCTAssertEqual(page.body["count"], .int(2))
        XCTAssertEqual(page.body["items"]?.arrayValue?.first?["name"], .string("second-one"))
        let updated = try await send(server, "PUT", "/templates/" + id, ["template": .object(["steps": .object([:]), "allow_steps_override": .bool(false)])])
        XCTAssertEqual(updated.body["ok"], .string("TEMPLATE_UPDATED"), updated.body.serialized())
        XCTAssertEqual(updated.body["name"], .string("site-thumbs"), "an update keeps what it does not send")
        let fetched = try await send(server, "GET", "/templates/" + id)
        XCTAssertEqual(fetched.body["content"]?["allow_steps_override"], .bool(false))
        let deleted = try await send(server, "DELETE", "/templates/" + id)
        XCTAssertEqual(deleted.body["ok"], .string("TEMPLATE_DELETED"))
        let gone = try await send(server, "GET", "/templates/" + id)
        XCTAssertEqual(gone.status, 404)
    }

    func testAssembliesRunTheirTemplateAndRespectItsOverrideRule() async throws {
        let data = try TemporaryDirectory(prefix: "templates")
        defer { data.remove() }
        var server = try EngineTestServer(data: data)
        let open = try await send(server, "POST", "/templates", ["name": .string("open-template"), "template": .object(["steps": .object(["hash": hash])])])
        let closed = try await send(server, "POST", "/templates", [
            "name": .string("closed-template"), "template": .object(["steps": .object(["hash": hash]), "allow_steps_override": .bool(false)]),
        ])
        let openID = try XCTUnwrap(open.body["id"]?.stringValue), closedID = try XCTUnwrap(closed.body["id"]?.stringValue)
        // Templates survive a restart.
        server.stop(keepData: true)
        server = try EngineTestServer(data: data)
        defer { server.stop(keepData: true) }
        let client = EngineClient(server: server)
        let files = [("file", "a.txt", Data("abc".utf8))]
        let fromTemplate = try await client.create(steps: .object([:]), files: files, params: JSONValue.object(["template_id": .string(openID)]).serialized())
        let done = try await client.wait(try XCTUnwrap(fromTemplate.body["assembly_id"]?.stringValue))
        XCTAssertEqual(done["ok"], .string(AssemblyStatusCode.completed.rawValue), done.serialized())
        XCTAssertEqual(done["results"]?["hash"]?.arrayValue?.count, 1)
        let override = JSONValue.object(["template_id": .string(closedID), "steps": .object(["other": hash])]).serialized()
        let denied = try await client.create(steps: .object([:]), files: files, params: override)
        XCTAssertEqual(denied.body["error"], .string("TEMPLATE_DENIES_STEPS_OVERRIDE"))
        let missing = try await client.create(steps: .object([:]), params: JSONValue.object(["template_id": .string("nope")]).serialized())
        XCTAssertEqual(missing.body["error"], .string("TEMPLATE_NOT_FOUND"))
        let listing = try await send(server, "GET", "/assemblies")
        XCTAssertEqual(listing.body["count"], .int(1))
    }

    func testAnEnginePolicyJudgesATemplateByTheNameItListsAndTheStepsItHolds() async throws {
        let folder = try TemporaryDirectory(prefix: "policy")
        defer { folder.remove() }
        try folder.write("policy.yml", "version: 1\ntemplates: {allowed: [site-hashes]}\nrobots:\n  /file/hash: {use: {}}\n")
        let policy = try XCTUnwrap(PolicyLoader(environment: [:]).load(path: folder.path + "/policy.yml").value)
        let server = try EngineTestServer(policy: policy)
        defer { server.stop() }
        let resize: JSONValue = .object(["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(10)])
        var ids: [String: String] = [:]
        for (name, step) in [("site-hashes", hash), ("other-hashes", hash)] {
            let created = try await send(server, "POST", "/templates", ["name": .string(name), "template": .object(["steps": .object(["s": step])])])
            ids[name] = try XCTUnwrap(created.body["id"]?.stringValue)
        }
        let client = EngineClient(server: server)
        let files = [("file", "a.txt", Data("abc".utf8))]
        let allowed = try await client.create(steps: .object([:]), files: files, params: JSONValue.object(["template_id": .string(ids["site-hashes"] ?? "")]).serialized())
        XCTAssertNil(allowed.body["error"], "listed by name, steps allowed: \(allowed.body.serialized())")
        let other = try await client.create(steps: .object([:]), files: files, params: JSONValue.object(["template_id": .string(ids["other-hashes"] ?? "")]).serialized())
        XCTAssertEqual(other.body["error"], .string("POLICY_VIOLATION"), other.body.serialized())
        // The same name with steps the policy does not allow: refused for what the Template holds.
        _ = try await send(server, "PUT", "/templates/" + (ids["site-hashes"] ?? ""), ["name": .string("site-hashes"), "template": .object(["steps": .object(["s": resize])])])
        let changed = try await client.create(steps: .object([:]), files: files, params: JSONValue.object(["template_id": .string(ids["site-hashes"] ?? "")]).serialized())
        XCTAssertEqual(changed.body["error"], .string("POLICY_VIOLATION"))
        XCTAssertTrue(changed.body["message"]?.stringValue?.contains("/image/resize") == true, changed.body.serialized())
    }

    func testTemplateRequestsAreSignedLikeAssemblies() async throws {
        let credentials = (key: "k", secret: "s")
        let server = try EngineTestServer(credentials: credentials)
        defer { server.stop() }
        let unsigned = try await send(server, "POST", "/templates", ["name": .string("unsigned"), "template": .object(["steps": .object([:])])])
        XCTAssertEqual(unsigned.body["error"], .string("NO_SIGNATURE_FIELD"))
        let signed = try await send(
            server, "POST", "/templates", ["name": .string("signed-one"), "template": .object(["steps": .object([:])])], credentials: credentials)
        XCTAssertEqual(signed.body["ok"], .string("TEMPLATE_CREATED"), signed.body.serialized())
        let unsignedList = try await send(server, "GET", "/templates")
        XCTAssertEqual(unsignedList.body["error"], .string("NO_PARAMS_FIELD"))
        let list = try await send(server, "GET", "/templates", [:], credentials: credentials)
        XCTAssertEqual(list.body["count"], .int(1), list.body.serialized())
        // The Assemblies listing holds every Assembly's params and results: signed too.
        let unsignedAssemblies = try await send(server, "GET", "/assemblies")
        XCTAssertEqual(unsignedAssemblies.body["error"], .string("NO_PARAMS_FIELD"), unsignedAssemblies.body.serialized())
        let assemblies = try await send(server, "GET", "/assemblies", [:], credentials: credentials)
        XCTAssertEqual(assemblies.body["count"], .int(0), assemblies.body.serialized())
    }

    func testListingsTakeAnyPageNumberAndOnlyTheirOwnPaths() async throws {
        let server = try EngineTestServer()
        defer { server.stop() }
        for path in ["/templates?page=9223372036854775807&pagesize=5000", "/assemblies?page=9223372036854775807&pagesize=2",
                     "/templates?page=-5", "/assemblies?pagesize=99999999999999999999"] {
            let answer = try await send(server, "GET", path)
            XCTAssertEqual(answer.status, 200, path)
            XCTAssertEqual(answer.body["items"], .array([]), path)
        }
        let nested = try await send(server, "GET", "/templates/a/b")
        XCTAssertEqual(nested.status, 404, "not the listing")
    }
}
