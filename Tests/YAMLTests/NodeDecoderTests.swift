import Basics
import XCTest
import YAML

final class NodeDecoderFieldsTests: XCTestCase {
    func testUnknownAndMissingKeys() throws {
        let root = try parsedRoot("nmae: demo\nversion: 1\n")
        let decoder = NodeDecoder(environment: [:])
        let fields = try XCTUnwrap(
            decoder.fields(root, what: "the manifest", allowed: ["version", "name", "steps"], required: ["version", "steps"]))
        XCTAssertEqual(fields["version"]?.location, loc(2, 10))
        XCTAssertEqual(fields.keyNode("version")?.location, loc(2, 1))
        XCTAssertNil(fields["name"])
        XCTAssertNil(fields["nmae"])
        XCTAssertEqual(fields.node.location, loc(1, 1))
        XCTAssertEqual(decoder.diagnostics, [
            .error(
                "manifest.unknown-key", "unknown key 'nmae' in the manifest", at: loc(1, 1), hint: "did you mean 'name'?"),
            .error(
                "manifest.missing-key", "the manifest is missing the required key 'steps'", at: loc(1, 1),
                hint: "add 'steps:'"),
        ])
    }

    func testUnknownKeyWithoutACloseMatchListsTheValidKeys() throws {
        let root = try parsedRoot("version: 1\nzzzzzz: 2\n")
        let decoder = NodeDecoder(environment: [:], domain: "policy")
        _ = decoder.fields(root, what: "the policy", allowed: ["version", "name"])
        XCTAssertEqual(decoder.diagnostics, [
            .error(
                "policy.unknown-key", "unknown key 'zzzzzz' in the policy", at: loc(2, 1),
                hint: "valid keys: name, version"),
        ])
    }

    func testFieldsOfANonMapping() throws {
        let root = try parsedRoot("- a\n")
        let decoder = NodeDecoder(environment: [:])
        XCTAssertNil(decoder.fields(root, what: "the manifest", allowed: ["version"]))
        XCTAssertEqual(decoder.diagnostics, [
            .error("manifest.wrong-type", "the manifest must be a mapping, found a sequence", at: loc(1, 1)),
        ])
    }

    func testEntriesKeepDocumentOrder() throws {
        let root = try parsedRoot("zeta: 1\nalpha: 2\nmid: 3\n")
        let decoder = NodeDecoder(environment: [:])
        XCTAssertEqual(decoder.entries(root, what: "steps")?.map(\.keyText), ["zeta", "alpha", "mid"])
        XCTAssertNil(decoder.entries(try XCTUnwrap(root.member("zeta")), what: "steps"))
        XCTAssertEqual(decoder.diagnostics.map(\.message), ["steps must be a mapping, found an integer"])
    }
}

final class NodeDecoderScalarTests: XCTestCase {
    private func decode<T>(_ text: String, _ body: (NodeDecoder, Node) -> T) throws -> (T, [Diagnostic]) {
        let root = try parsedRoot(text)
        let node = try XCTUnwrap(root.member("v"))
        let decoder = NodeDecoder(environment: [:])
        return (body(decoder, node), decoder.diagnostics)
    }

    func testInt() throws {
        let (value, diagnostics) = try decode("v: 20\n") { $0.int($1, what: "batch", minimum: 1, maximum: 100) }
        XCTAssertEqual(value, Located(20, at: loc(1, 4)))
        XCTAssertEqual(diagnostics, [])
        XCTAssertEqual(try decode("v: 0x10\n") { $0.int($1, what: "batch") }.0?.value, 16)
    }

    func testIntBounds() throws {
        let (low, lowDiagnostics) = try decode("v: 0\n") { $0.int($1, what: "batch", minimum: 1) }
        XCTAssertNil(low)
        XCTAssertEqual(lowDiagnostics, [.error("manifest.out-of-range", "batch must be at least 1, found 0", at: loc(1, 4))])
        let (high, highDiagnostics) = try decode("v: 5000\n") { $0.int($1, what: "width", minimum: 1, maximum: 4000) }
        XCTAssertNil(high)
        XCTAssertEqual(
            highDiagnostics, [.error("manifest.out-of-range", "width must be at most 4000, found 5000", at: loc(1, 4))])
        XCTAssertEqual(try decode("v: 4000\n") { $0.int($1, what: "width", maximum: 4000) }.0?.value, 4000)
    }

    func testIntWrongTypes() throws {
        let cases: [(String, String)] = [
            ("v: ten\n", "batch must be an integer, found a string"),
            ("v: 1.5\n", "batch must be an integer, found a number"),
            ("v: '3'\n", "batch must be an integer, found a string"),
            ("v: [1]\n", "batch must be an integer, found a sequence"),
        ]
        for (text, message) in cases {
            let (value, diagnostics) = try decode(text) { $0.int($1, what: "batch") }
            XCTAssertNil(value, text)
            XCTAssertEqual(diagnostics, [.error("manifest.wrong-type", message, at: loc(1, 4))], text)
        }
    }

    func testBool() throws {
        XCTAssertEqual(try decode("v: true\n") { $0.bool($1, what: "result") }.0, true)
        XCTAssertEqual(try decode("v: False\n") { $0.bool($1, what: "result") }.0, false)
        let (value, diagnostics) = try decode("v: yes\n") { $0.bool($1, what: "result") }
        XCTAssertNil(value)
        XCTAssertEqual(
            diagnostics, [.error("manifest.wrong-type", "result must be true or false, found a string", at: loc(1, 4))])
    }

    func testStringRefusesNumbersUnlessAccepted() throws {
        let quoteHint = "put the value in quotes to make it a string"
        let (refused, diagnostics) = try decode("v: 123\n") { $0.string($1, what: "name") }
        XCTAssertNil(refused)
        XCTAssertEqual(
            diagnostics,
            [.error("manifest.wrong-type", "name must be a string, found an integer", at: loc(1, 4), hint: quoteHint)])
        let (accepted, acceptedDiagnostics) = try decode("v: 0123\n") {
            $0.string($1, what: "template_id", acceptingNumbers: true)
        }
        XCTAssertEqual(accepted, Located("0123", at: loc(1, 4)))
        XCTAssertEqual(acceptedDiagnostics, [])
        XCTAssertEqual(
            try decode("v: true\n") { $0.string($1, what: "name") }.1.map(\.message),
            ["name must be a string, found a boolean"])
    }

    func testStringOtherCases() throws {
        XCTAssertEqual(try decode("v: hello\n") { $0.string($1, what: "name") }.0, Located("hello", at: loc(1, 4)))
        XCTAssertEqual(try decode("v: \"123\"\n") { $0.string($1, what: "name") }.0?.value, "123")
        let (null, nullDiagnostics) = try decode("v: ~\n") { $0.string($1, what: "name") }
        XCTAssertNil(null)
        XCTAssertEqual(nullDiagnostics, [.error(
            "manifest.wrong-type", "name must be a string, found null", at: loc(1, 4),
            hint: "put the value in quotes to make it a string")])
        let (list, listDiagnostics) = try decode("v: [a]\n") { $0.string($1, what: "name") }
        XCTAssertNil(list)
        XCTAssertEqual(listDiagnostics, [.error("manifest.wrong-type", "name must be a string, found a sequence", at: loc(1, 4))])
    }

    func testNonEmptyString() throws {
        let (value, diagnostics) = try decode("v: ''\n") { $0.nonEmptyString($1, what: "name") }
        XCTAssertNil(value)
        XCTAssertEqual(diagnostics, [.error("manifest.empty-value", "name must not be empty", at: loc(1, 4))])
    }

    func testDuration() throws {
        XCTAssertEqual(
            try decode("v: 1h30m\n") { $0.duration($1, what: "expires_in") }.0, Located(Duration.seconds(5_400), at: loc(1, 4)))
        let hint = "write a number followed by d, h, m or s, such as 90s, 15m, 1h30m"
        let cases: [(String, String)] = [("v: 15\n", "15"), ("v: 1.5h\n", "1.5h"), ("v: '15 m'\n", "15 m")]
        for (text, shown) in cases {
            let (value, diagnostics) = try decode(text) { $0.duration($1, what: "expires_in") }
            XCTAssertNil(value, text)
            XCTAssertEqual(diagnostics, [.error(
                "manifest.bad-duration", "expires_in '\(shown)' is not a duration", at: loc(1, 4), hint: hint)], text)
        }
        let (huge, hugeDiagnostics) = try decode("v: 106751991167300d\n") { $0.duration($1, what: "expires_in") }
        XCTAssertNil(huge)
        XCTAssertEqual(hugeDiagnostics, [.error(
            "manifest.bad-duration", "expires_in '106751991167300d' is too long: a duration is at most 36500d (100 years)", at: loc(1, 4),
            hint: "write a shorter duration, such as 365d")])
    }

    func testSize() throws {
        XCTAssertEqual(try decode("v: 2GB\n") { $0.size($1, what: "file_size") }.0?.value, ByteSize(bytes: 2_000_000_000))
        XCTAssertEqual(try decode("v: 500\n") { $0.size($1, what: "file_size") }.0, Located(ByteSize(bytes: 500), at: loc(1, 4)))
        let (value, diagnostics) = try decode("v: 10gb\n") { $0.size($1, what: "file_size") }
        XCTAssertNil(value)
        XCTAssertEqual(diagnostics, [.error(
            "manifest.bad-size", "file_size '10gb' is not a size", at: loc(1, 4),
            hint: "write a whole number of bytes or a number with a unit: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB")])
        XCTAssertEqual(try decode("v: {}\n") { $0.size($1, what: "file_size") }.1.map(\.id), ["manifest.wrong-type"])
    }

    func testStringList() throws {
        XCTAssertEqual(try decode("v: a\n") { $0.stringList($1, what: "inputs") }.0, [Located("a", at: loc(1, 4))])
        XCTAssertEqual(
            try decode("v: [a, b]\n") { $0.stringList($1, what: "inputs") }.0,
            [Located("a", at: loc(1, 5)), Located("b", at: loc(1, 8))])
        let (mixed, diagnostics) = try decode("v: [a, 1]\n") { $0.stringList($1, what: "inputs") }
        XCTAssertNil(mixed)
        XCTAssertEqual(diagnostics.map(\.message), ["each entry of inputs must be a string, found an integer"])
        XCTAssertEqual(diagnostics.first?.location, loc(1, 8))
        XCTAssertEqual(
            try decode("v: {a: 1}\n") { $0.stringList($1, what: "inputs") }.1.map(\.message),
            ["inputs must be a string or a list of strings, found a mapping"])
    }
}
