import Foundation
import Spec
import Basics
import TestSupport
import XCTest

final class ManifestLoaderTests: XCTestCase {
    func testFullManifestDecodesEveryField() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("valid-full.yml")))
        let loaded = ManifestLoader(environment: ["SIGNER_TOKEN": "s3cret-token"]).decode(data, file: "dir/valid-full.yml")
        XCTAssertEqual(loaded.diagnostics, [])
        let manifest = try XCTUnwrap(loaded.value)
        XCTAssertEqual(manifest.name, "full")
        XCTAssertEqual(manifest.endpoint?.value, .url("https://api2.transloadit.com"))
        XCTAssertEqual(manifest.auth.key?.value, "abc")
        XCTAssertEqual(manifest.auth.expiresIn?.value, .seconds(1800))
        XCTAssertEqual(manifest.auth.signer?.value, .url("https://signer.example.com/sign", token: .value("s3cret-token")))
        XCTAssertEqual(manifest.policy?.value, "policy.yml")
        XCTAssertEqual(manifest.results?.value, "out/results.json")
        XCTAssertEqual(manifest.jobs.map(\.name.value), ["thumbs", "videos"])

        let thumbs = manifest.jobs[0]
        XCTAssertEqual(thumbs.inputs.map(\.value), ["images/*.jpg", "!images/skip.jpg"])
        XCTAssertEqual(thumbs.batch, .count(5), "inherited from defaults")
        XCTAssertEqual(thumbs.steps.map(\.name.value), ["resize", "small"])
        XCTAssertEqual(thumbs.fields, ["site": .string("example.com"), "kind": .string("thumb")])
        XCTAssertEqual(thumbs.notifyURL?.value, "https://hooks.example.com/done")
        XCTAssertEqual(thumbs.download?.value, "build/thumbs")
        XCTAssertEqual(
            thumbs.instructions.serialized(),
            #"{"fields":{"kind":"thumb","site":"example.com"},"notify_url":"https://hooks.example.com/done","#
                + #""steps":{"resize":{"height":100,"robot":"/image/resize","use":":original","width":200},"#
                + #""small":{"height":100,"robot":"/image/resize","use":["resize"],"width":50}}}"#)

        let videos = manifest.jobs[1]
        XCTAssertEqual(videos.batch, .all)
        XCTAssertEqual(videos.templateID?.value, "0123abcd")
        XCTAssertTrue(videos.allowEmpty)
        XCTAssertEqual(videos.inputs.map(\.value), ["videos/*.mp4"])
    }

    func testLocationsOfInstructionValuesAreKept() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("valid-full.yml")))
        let manifest = try XCTUnwrap(ManifestLoader(environment: [:]).decode(data, file: "m.yml").value)
        let locations = manifest.jobs[0].locations
        XCTAssertEqual(locations.valueLocation(["steps", "resize", "width"]), SourceLocation(file: "m.yml", line: 22, column: 16))
        XCTAssertEqual(locations.keyLocation(["steps", "small", "width"]), SourceLocation(file: "m.yml", line: 27, column: 9))
        XCTAssertEqual(locations.valueLocation(["fields", "site"]), SourceLocation(file: "m.yml", line: 14, column: 18))
    }

    func testInterpolatedNumbersKeepTheirType() throws {
        let text = """
            version: 1
            assemblies:
              a:
                inputs: "${DIR:-img}/*.png"
                batch: ${BATCH}
                steps:
                  r:
                    robot: /image/resize
                    resize_strategy: "${S}"
                    height: ${H}
            """
        let manifest = try XCTUnwrap(decode(text, environment: ["BATCH": "7", "S": "fit", "H": "20"]).value)
        XCTAssertEqual(manifest.jobs[0].batch, .count(7))
        XCTAssertEqual(manifest.jobs[0].inputs.map(\.value), ["img/*.png"])
        XCTAssertEqual(manifest.jobs[0].steps[0].instructions["resize_strategy"], .string("fit"), "quoted stays a string")
        XCTAssertEqual(manifest.jobs[0].steps[0].instructions["height"], .int(20))
        // Where only numbers are taken, a quoted number is refused, as a policy refuses it: one rule for both.
        let quoted = decode(text.replacingOccurrences(of: "height: ${H}", with: "height: \"${H}\""), environment: ["BATCH": "7", "S": "fit", "H": "20"])
        XCTAssertTrue(quoted.diagnostics.contains { $0.message.contains("found the string '20' (write it without quotes)") }, "\(quoted.diagnostics)")
    }

    func testCredentialsMayStayUnsetUntilTheyAreNeeded() throws {
        let text = """
            version: 1
            auth: {key: "${TRANSLOADIT_KEY}"}
            assemblies: {a: {inputs: x, template_id: t}}
            """
        let planning = decode(text)
        XCTAssertEqual(planning.diagnostics, [])
        XCTAssertNil(planning.value?.auth.key)
        let running = ManifestLoader(environment: [:], requiresCredentials: true).decode(Data(text.utf8), file: "m.yml")
        XCTAssertEqual(running.diagnostics.map(\.id), ["manifest.unset-variable"])
        XCTAssertEqual(running.diagnostics.first?.location, SourceLocation(file: "m.yml", line: 2, column: 14))
        // Loaded once for planning, the manifest keeps the same error for when a run needs the key.
        XCTAssertEqual(planning.value?.auth.unresolved, running.diagnostics)
    }

    func testDefaultNameComesFromTheFileName() throws {
        let loaded = ManifestLoader(environment: [:]).decode(Data("version: 1\nassemblies: {a: {inputs: x, template_id: t}}\n".utf8), file: "conf/site.yml")
        XCTAssertEqual(loaded.value?.name, "site")
    }

    func testSignerKinds() throws {
        let cases: [(String, SignerSettings?, [String])] = [
            ("{command: [sign, --quiet], timeout: 5s}", .command(arguments: ["sign", "--quiet"], timeout: .seconds(5)), []),
            ("{secret_env: MY_SECRET}", .secret(variable: "MY_SECRET"), []),
            ("{url: 'http://127.0.0.1:9000/sign'}", .url("http://127.0.0.1:9000/sign", token: nil), []),
            ("{url: 'http://localhost.evil.example/sign'}", nil, ["manifest.insecure-signer"]),
            ("{command: []}", nil, ["manifest.bad-signer"]),
            ("{command: 'sign --quiet'}", nil, ["manifest.bad-signer"]),
            ("{secret_env: X, token: t}", nil, ["manifest.bad-signer"]),
            ("{url: 'https://s.example', command: [x]}", nil, ["manifest.bad-signer"]),
            ("{url: 'https://s.example', token: {oidc: github, audience: pipeline-signer}}",
             .url("https://s.example", token: .identity(.github(audience: "pipeline-signer"))), []),
            ("{url: 'https://s.example', token: {oidc: gitlab, variable: SIGNER_ID_TOKEN}}",
             .url("https://s.example", token: .identity(.variable("SIGNER_ID_TOKEN"))), []),
            ("{url: 'https://s.example', token: {oidc: env, variable: MY_JWT}}", .url("https://s.example", token: .identity(.variable("MY_JWT"))), []),
            ("{url: 'https://s.example', token: {oidc: github}}", nil, ["manifest.bad-signer"]),
            ("{url: 'https://s.example', token: {oidc: github, audience: a, variable: B}}", nil, ["manifest.bad-signer"]),
            ("{url: 'https://s.example', token: {oidc: gitlab}}", nil, ["manifest.bad-signer"]),
            ("{url: 'https://s.example', token: {oidc: gitlab, variable: '$X'}}", nil, ["manifest.bad-signer"]),
            ("{url: 'https://s.example', token: {oidc: gitlab, variable: X, audience: a}}", nil, ["manifest.bad-signer"]),
            ("{url: 'https://s.example', token: {oidc: githbu, audience: a}}", nil, ["manifest.bad-signer"]),
            ("{url: 'https://s.example', token: {audience: a}}", nil, ["manifest.missing-key"]),
        ]
        for (signer, expected, ids) in cases {
            let loaded = decode("version: 1\nauth: {signer: \(signer)}\nassemblies: {a: {inputs: x, template_id: t}}\n")
            XCTAssertEqual(loaded.diagnostics.map(\.id), ids, signer)
            if let expected { XCTAssertEqual(loaded.value?.auth.signer?.value, expected, signer) }
        }
    }

    func testMissingFileIsAnErrorNamingIt() {
        let loaded = ManifestLoader(environment: [:]).load(path: "/nonexistent/pipeline.yml")
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics.map(\.id), ["manifest.unreadable"])
        XCTAssertTrue(loaded.diagnostics[0].message.contains("/nonexistent/pipeline.yml"))
    }

    func testEmptyManifest() {
        XCTAssertEqual(decode("# nothing\n").diagnostics.map(\.id), ["manifest.empty"])
    }

    func testTemplateIDsWithLeadingZerosKeepTheirText() throws {
        let manifest = try XCTUnwrap(decode("version: 1\nassemblies: {a: {inputs: x, template_id: 0123}}\n").value)
        XCTAssertEqual(manifest.jobs[0].templateID?.value, "0123")
    }

    func testResultsAndDownloadsStayInsideTheProject() {
        for (results, download) in [("/tmp/x/.bashrc", "out"), ("../results.json", "out"), ("out/r.json", "/home/ci"), ("r.json", "a/../../b")] {
            let loaded = decode("version: 1\nresults: \(results)\nassemblies: {a: {inputs: x, download: \(download), steps: {h: {robot: /file/hash, use: ':original'}}}}\n")
            XCTAssertEqual(loaded.diagnostics.map(\.id), ["manifest.outside-project"], "\(results) \(download)")
            XCTAssertTrue(loaded.diagnostics.first?.hint?.contains("on the command line") == true)
        }
        let inside = decode("version: 1\nresults: out/./r.json\nassemblies: {a: {inputs: x, download: a/../b, steps: {h: {robot: /file/hash, use: ':original'}}}}\n")
        XCTAssertEqual(inside.diagnostics.map(\.id), [])
    }

    func testABatchThatIsNoWholeNumberSaysWhatIsWrongWithIt() {
        let cases = [
            ("99999999999999999999", "'batch' 99999999999999999999 is too large"),
            ("2.5", "'batch' must be a whole number of at least 1, found 2.5"),
            ("1e3", "'batch' must be written as a whole number (1000), found 1e3"),
            (".nan", "'batch' must be a whole number of at least 1, found .nan"),
            (".inf", "'batch' .inf is too large"),
            ("0", "'batch' must be at least 1, found 0"),
        ]
        for (batch, message) in cases {
            let loaded = decode("version: 1\nassemblies: {a: {inputs: x, batch: \(batch), steps: {h: {robot: /file/hash, use: ':original'}}}}\n")
            XCTAssertEqual(loaded.diagnostics.map(\.message), [message], batch)
        }
    }

    private func decode(_ text: String, environment: [String: String] = [:]) -> Loaded<Manifest> {
        ManifestLoader(environment: environment).decode(Data(text.utf8), file: "m.yml")
    }
}
