import Basics
import XCTest
import YAML

final class NodeDecoderJSONTests: XCTestCase {
    private let text = """
        steps:
          thumb:
            width: 200
            ratio: 1.5
            crop: true
            none: ~
            tags: [a, [b, 2]]
            name: "x"

        """

    func testConvertsAMappingAndRecordsLocations() throws {
        let root = try parsedRoot(text)
        let decoder = NodeDecoder(environment: [:])
        var index = LocationIndex()
        let value = decoder.json(root, path: [], index: &index)
        XCTAssertEqual(value, .object([
            "steps": .object([
                "thumb": .object([
                    "width": .int(200),
                    "ratio": .double(1.5),
                    "crop": .bool(true),
                    "none": .null,
                    "tags": .array([.string("a"), .array([.string("b"), .int(2)])]),
                    "name": .string("x"),
                ]),
            ]),
        ]))
        XCTAssertEqual(decoder.diagnostics, [])

        XCTAssertEqual(index.keyLocation(["steps"]), loc(1, 1))
        XCTAssertEqual(index.valueLocation(["steps"]), loc(2, 3))
        XCTAssertEqual(index.keyLocation(["steps", "thumb", "width"]), loc(3, 5))
        XCTAssertEqual(index.valueLocation(["steps", "thumb", "width"]), loc(3, 12))
        XCTAssertEqual(index.keyLocation(["steps", "thumb", "tags"]), loc(7, 5))
        XCTAssertEqual(index.valueLocation(["steps", "thumb", "tags"]), loc(7, 11))
        XCTAssertEqual(index.valueLocation(["steps", "thumb", "tags", "1"]), loc(7, 15))
        XCTAssertEqual(index.valueLocation(["steps", "thumb", "tags", "1", "1"]), loc(7, 19))
        // Sequence elements have no key: the key location falls back to the element itself.
        XCTAssertEqual(index.keyLocation(["steps", "thumb", "tags", "1", "0"]), loc(7, 16))
        // Paths that were never written fall back to the nearest ancestor.
        XCTAssertEqual(index.keyLocation(["steps", "thumb", "height"]), loc(2, 3))
        XCTAssertEqual(index.valueLocation(["steps", "thumb", "height"]), loc(3, 5))
        XCTAssertEqual(index.keyLocation([]), loc(1, 1))
    }

    func testPathAndKeyArePrefixed() throws {
        let root = try parsedRoot(text)
        let decoder = NodeDecoder(environment: [:])
        var index = LocationIndex()
        let steps = try XCTUnwrap(root.member("steps"))
        let keyLocation = try XCTUnwrap(root.memberKey("steps")).location
        let value = decoder.json(steps, path: ["jobs", "j", "steps"], index: &index, key: keyLocation)
        XCTAssertEqual(value?["thumb"]?["width"], .int(200))
        XCTAssertEqual(index.keyLocation(["jobs", "j", "steps"]), loc(1, 1))
        XCTAssertEqual(index.keyLocation(["jobs", "j", "steps", "thumb", "crop"]), loc(5, 5))
        XCTAssertNil(index.keyLocation(["other"]))
    }

    func testNonFiniteNumbersHaveNoJSONForm() throws {
        let root = try parsedRoot("a: 1\nb: .inf\nc: [.nan]\n")
        let decoder = NodeDecoder(environment: [:])
        var index = LocationIndex()
        XCTAssertNil(decoder.json(root, path: [], index: &index))
        let hint = "use a finite number, or quote the value to make it a string"
        XCTAssertEqual(decoder.diagnostics, [
            .error("manifest.not-json", "'.inf' has no JSON representation", at: loc(2, 4), hint: hint),
            .error("manifest.not-json", "'.nan' has no JSON representation", at: loc(3, 5), hint: hint),
        ])
    }

    func testMergedKeysAppearInJSON() throws {
        let root = try parsedRoot("base: &b {width: 1, height: 2}\nstep:\n  <<: *b\n  width: 3\n")
        let decoder = NodeDecoder(environment: [:])
        var index = LocationIndex()
        let value = decoder.json(try XCTUnwrap(root.member("step")), path: [], index: &index)
        XCTAssertEqual(value, .object(["width": .int(3), "height": .int(2)]))
        XCTAssertEqual(index.valueLocation(["height"]), loc(1, 29))
    }
}

final class NodeDecoderInterpolationTests: XCTestCase {
    func testDefaultResolvesToAnInteger() throws {
        let root = try parsedRoot("timeout: ${N:-200}\nquoted: \"${N:-200}\"\n")
        let decoder = NodeDecoder(environment: [:])
        var index = LocationIndex()
        let timeout = try XCTUnwrap(root.member("timeout"))
        XCTAssertEqual(decoder.json(timeout, path: [], index: &index), .int(200))
        XCTAssertEqual(decoder.int(timeout, what: "timeout"), Located(200, at: loc(1, 10)))
        XCTAssertEqual(decoder.json(try XCTUnwrap(root.member("quoted")), path: [], index: &index), .string("200"))
        XCTAssertEqual(decoder.diagnostics, [])
    }

    func testEnvironmentValueIsUsed() throws {
        let root = try parsedRoot("timeout: ${N:-200}\nkey: ${KEY}\nprice: 5$$\n")
        let decoder = NodeDecoder(environment: ["N": "7", "KEY": "abc"])
        XCTAssertEqual(decoder.int(try XCTUnwrap(root.member("timeout")), what: "timeout")?.value, 7)
        XCTAssertEqual(decoder.string(try XCTUnwrap(root.member("key")), what: "key")?.value, "abc")
        XCTAssertEqual(decoder.string(try XCTUnwrap(root.member("price")), what: "price")?.value, "5$")
        XCTAssertEqual(decoder.diagnostics, [])
    }

    private func unset(at location: SourceLocation) -> Diagnostic {
        .error(
            "manifest.unset-variable", "environment variable 'MISSING' is not set", at: location,
            hint: "set MISSING in the environment, or give a default with '${MISSING:-value}'")
    }

    func testUnsetVariableInAPlainScalarPointsAtTheDollar() throws {
        let root = try parsedRoot("key: abc${MISSING}\n")
        let decoder = NodeDecoder(environment: [:])
        XCTAssertNil(decoder.string(try XCTUnwrap(root.member("key")), what: "key"))
        XCTAssertEqual(decoder.diagnostics, [unset(at: loc(1, 9))])
    }

    func testUnsetVariableInQuotedScalarsPointsAtTheDollar() throws {
        let root = try parsedRoot("double: \"abc${MISSING}\"\nsingle: 'abc${MISSING}'\n")
        let decoder = NodeDecoder(environment: [:])
        XCTAssertNil(decoder.string(try XCTUnwrap(root.member("double")), what: "double"))
        XCTAssertNil(decoder.string(try XCTUnwrap(root.member("single")), what: "single"))
        XCTAssertEqual(decoder.diagnostics, [unset(at: loc(1, 13)), unset(at: loc(2, 13))])
    }

    func testUnsetVariableInABlockScalarPointsAtTheScalar() throws {
        let root = try parsedRoot("key: |\n  a ${MISSING}\n  b\n")
        let decoder = NodeDecoder(environment: [:])
        XCTAssertNil(decoder.string(try XCTUnwrap(root.member("key")), what: "key"))
        XCTAssertEqual(decoder.diagnostics, [unset(at: loc(1, 6))])
    }

    func testMalformedReference() throws {
        let root = try parsedRoot("key: x${1A:-d}\n")
        let decoder = NodeDecoder(environment: [:])
        XCTAssertNil(decoder.string(try XCTUnwrap(root.member("key")), what: "key"))
        XCTAssertEqual(decoder.diagnostics, [.error(
            "manifest.bad-interpolation", "'1A' is not a valid variable name", at: loc(1, 7),
            hint: "write '${NAME}' or '${NAME:-default}'; use '$$' for a literal '$'")])
    }

    func testToleratingUnsetVariables() throws {
        let root = try parsedRoot("key: ${MISSING}\nbad: ${\n")
        let decoder = NodeDecoder(environment: [:])
        let key = try XCTUnwrap(root.member("key"))
        let tolerated = decoder.toleratingUnsetVariables { decoder.string(key, what: "key") }
        XCTAssertNil(tolerated)
        XCTAssertEqual(decoder.diagnostics, [])
        XCTAssertFalse(decoder.toleratesUnsetVariables)

        // Malformed references are still reported while tolerating.
        let bad = try XCTUnwrap(root.member("bad"))
        _ = decoder.toleratingUnsetVariables { decoder.string(bad, what: "bad") }
        XCTAssertEqual(decoder.diagnostics.map(\.id), ["manifest.bad-interpolation"])

        // Outside the closure the unset variable is an error again.
        XCTAssertNil(decoder.string(key, what: "key"))
        XCTAssertEqual(decoder.diagnostics.map(\.id), ["manifest.bad-interpolation", "manifest.unset-variable"])
        XCTAssertEqual(decoder.diagnostics.last?.location, loc(1, 6))
    }

    func testKeysAreNotInterpolated() throws {
        let root = try parsedRoot("${K}: 1\n")
        let decoder = NodeDecoder(environment: ["K": "x"])
        let fields = decoder.fields(root, what: "m", allowed: ["${K}"])
        XCTAssertNotNil(fields?["${K}"])
        XCTAssertEqual(decoder.diagnostics, [])
    }
}
