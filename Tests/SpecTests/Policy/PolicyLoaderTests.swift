import Foundation
import Basics
import Spec
import TestSupport
import XCTest

final class PolicyLoaderTests: XCTestCase {
    private func decode(_ yaml: String, environment: [String: String] = [:]) -> Loaded<Policy> {
        PolicyLoader(environment: environment).decode(Data(yaml.utf8), file: "policy.yml")
    }

    private func at(_ line: Int, _ column: Int) -> SourceLocation {
        SourceLocation(file: "policy.yml", line: line, column: column)
    }

    private let fullPolicy = """
        version: 1
        auth_key: ${TRANSLOADIT_KEY}
        max_expires_in: 1h30m
        limits: {files_per_assembly: 50, file_size: 2GB, assembly_size: 500MiB}
        templates: {allowed: [0123abcd, 4567], allow_steps_override: true}
        fields: {allowed: [kind, site]}
        notify_url: {allowed: ["https://hooks.example.com/transloadit"]}
        robots:
          /image/resize:
            width: {type: integer, min: 1, max: 4000}
            resize_strategy: {enum: [fit, fillcrop, crop, pad, stretch]}
            result: {type: boolean}
            quality: {type: number, min: 0.5, max: 100}
            format: {type: string, pattern: "jpe?g|png"}
            background: {}
            strip:
          /image/optimize:
          /file/filter: ~
        """

    func testFullPolicyDecodesEveryField() throws {
        let loaded = decode(fullPolicy, environment: ["TRANSLOADIT_KEY": "key-1"])
        XCTAssertEqual(loaded.diagnostics, [])
        let policy = try XCTUnwrap(loaded.value)
        XCTAssertEqual(policy.file, "policy.yml")
        XCTAssertEqual(policy.authKey, "key-1")
        XCTAssertEqual(policy.maxExpiresIn, .seconds(5400))
        XCTAssertEqual(policy.limits.filesPerAssembly, 50)
        XCTAssertEqual(policy.limits.fileSize, ByteSize(bytes: 2_000_000_000))
        XCTAssertEqual(policy.limits.assemblySize, ByteSize(bytes: 500 << 20))
        XCTAssertEqual(policy.templates?.allowed, ["0123abcd", "4567"])
        XCTAssertEqual(policy.templates?.allowStepsOverride, true)
        XCTAssertEqual(policy.allowedFields, ["kind", "site"])
        XCTAssertEqual(policy.allowedNotifyURLs, ["https://hooks.example.com/transloadit"])
        XCTAssertEqual(Set(policy.robots.keys), ["/image/resize", "/image/optimize", "/file/filter"])

        let options = try XCTUnwrap(policy.robots["/image/resize"]).options
        XCTAssertEqual(Set(options.keys), ["width", "resize_strategy", "result", "quality", "format", "background", "strip"])
        let width = try XCTUnwrap(options["width"])
        XCTAssertEqual(width.type, .integer)
        XCTAssertEqual(width.minimum, 1)
        XCTAssertEqual(width.maximum, 4000)
        XCTAssertNil(width.allowedValues)
        XCTAssertNil(width.pattern)
        XCTAssertEqual(options["resize_strategy"]?.allowedValues, ["fit", "fillcrop", "crop", "pad", "stretch"].map(JSONValue.string))
        XCTAssertNil(options["resize_strategy"]?.type)
        XCTAssertEqual(options["result"]?.type, .boolean)
        XCTAssertEqual(options["quality"]?.type, .number)
        XCTAssertEqual(options["quality"]?.minimum, 0.5)
        XCTAssertEqual(options["quality"]?.maximum, 100)
        XCTAssertEqual(options["format"]?.type, .string)
        XCTAssertEqual(options["format"]?.pattern, "jpe?g|png")
        XCTAssertEqual(policy.robots["/image/optimize"]?.options.count, 0)
        XCTAssertEqual(policy.robots["/file/filter"]?.options.count, 0)
        XCTAssertEqual(loaded.sources.line(2, in: "policy.yml"), "auth_key: ${TRANSLOADIT_KEY}")
    }

    func testEmptyOrNullConstraintAllowsAnything() throws {
        let options = try XCTUnwrap(decode(fullPolicy, environment: ["TRANSLOADIT_KEY": "k"]).value?.robots["/image/resize"]?.options)
        for name in ["background", "strip"] {
            let constraint = try XCTUnwrap(options[name], name)
            XCTAssertNil(constraint.type)
            XCTAssertNil(constraint.allowedValues)
            XCTAssertNil(constraint.minimum)
            XCTAssertNil(constraint.maximum)
            XCTAssertNil(constraint.pattern)
            for value: JSONValue in [.null, .int(-5), .string("red"), .object(["r": .int(1)])] {
                XCTAssertNil(constraint.violation(of: value), "\(name): \(value)")
            }
        }
    }

    func testNullRobotAllowsNoOptions() throws {
        let policy = try XCTUnwrap(decode(fullPolicy, environment: ["TRANSLOADIT_KEY": "k"]).value)
        let findings = policy.check(AssemblyRequest(params: .object(["steps": .object([
            "small": .object(["robot": .string("/image/optimize"), "use": .string(":original"), "progressive": .bool(true)]),
        ])])))
        XCTAssertEqual(findings, [PolicyFinding(
            id: "policy.option-not-allowed", message: "option 'progressive' of /image/optimize is not allowed (step 'small')",
            hint: "the policy allows /image/optimize with no options; /image/optimize itself takes 'progressive': ask the policy's owners to allow it", path: ["steps", "small", "progressive"], concernsKey: true)])
    }

    func testUnsetAuthKeyIsTolerated() throws {
        let loaded = decode("version: 1\nauth_key: ${UNSET_KEY}\nrobots: {}\n")
        XCTAssertEqual(loaded.diagnostics, [])
        let policy = try XCTUnwrap(loaded.value)
        XCTAssertNil(policy.authKey)
        XCTAssertTrue(policy.robots.isEmpty)
        XCTAssertNil(policy.templates)
        XCTAssertNil(policy.allowedFields)
        XCTAssertNil(policy.allowedNotifyURLs)
    }

    func testUnknownTopLevelKey() {
        let loaded = decode("version: 1\nrobots: {}\nnotify_urls: {allowed: []}\n")
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics, [Diagnostic(
            id: "policy.unknown-key", message: "unknown key 'notify_urls' in the policy", location: at(3, 1),
            hint: "did you mean 'notify_url'?")])
    }

    func testUnknownNestedKey() {
        let loaded = decode("version: 1\nlimits:\n  file_sizes: 2GB\nrobots: {}\n")
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics, [Diagnostic(
            id: "policy.unknown-key", message: "unknown key 'file_sizes' in 'limits'", location: at(3, 3),
            hint: "did you mean 'file_size'?")])
    }

    func testBadTypeName() {
        let loaded = decode("version: 1\nrobots:\n  /image/resize:\n    width: {type: strin}\n")
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics, [Diagnostic(
            id: "policy.bad-type", message: "'strin' is not a type", location: at(4, 19), hint: "did you mean 'string'?")])
    }

    func testInvalidRegularExpression() {
        let loaded = decode("version: 1\nrobots:\n  /image/resize:\n    format: {pattern: \"(unclosed\"}\n")
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics, [Diagnostic(
            id: "policy.bad-pattern", message: "'(unclosed' is not a valid regular expression", location: at(4, 23))])
    }

    func testRobotMustStartWithSlash() {
        let loaded = decode("version: 1\nrobots:\n  image/resize:\n    width: {type: integer}\n")
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics, [Diagnostic(
            id: "policy.bad-robot", message: "robot 'image/resize' must start with '/'", location: at(3, 3),
            hint: "robots are named like paths, such as '/image/resize'")])
    }

    func testUnsupportedVersion() {
        let loaded = decode("version: 2\nrobots: {}\n")
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics, [Diagnostic(
            id: "policy.unsupported-version", message: "policy version 2 is not supported", location: at(1, 10),
            hint: "this pipeline reads 'version: 1'")])
    }

    /// A bound that is not a number must be reported, not dropped: dropping it silently makes
    /// the policy allow more than its author wrote.
    func testNonScalarBoundIsAnError() {
        let loaded = decode("version: 1\nrobots:\n  /image/resize:\n    width: {type: integer, min: [1]}\n")
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics.map(\.id), ["policy.wrong-type"])
        XCTAssertEqual(loaded.diagnostics.first?.location, at(4, 33))
    }

    func testScalarBoundOfWrongType() {
        let loaded = decode("version: 1\nrobots:\n  /image/resize:\n    width: {max: big}\n")
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics.map(\.id), ["policy.wrong-type"])
        XCTAssertEqual(loaded.diagnostics.first?.message, "'max' must be a number, found a string")
    }

    func testMissingRobotsAndEmptyFile() {
        let missing = decode("version: 1\n")
        XCTAssertNil(missing.value)
        XCTAssertEqual(missing.diagnostics.map(\.id), ["policy.missing-key"])
        XCTAssertEqual(missing.diagnostics.first?.location, at(1, 1))

        let empty = decode("")
        XCTAssertNil(empty.value)
        XCTAssertEqual(empty.diagnostics.map(\.id), ["policy.empty"])
    }

    func testExamplePolicyLoads() throws {
        let path = PackageRoot.path + "/examples/site/policy.yml"
        let loaded = PolicyLoader(environment: [:]).load(path: path)
        XCTAssertEqual(loaded.diagnostics, [])
        let policy = try XCTUnwrap(loaded.value)
        XCTAssertEqual(policy.file, path)
        XCTAssertEqual(policy.limits.fileSize, ByteSize(bytes: 20_000_000))
        XCTAssertEqual(policy.robots["/image/resize"]?.options["width"]?.maximum, 4000)
    }

    func testWhatTheServiceDoesNotKnowIsAWarningAtItsLine() {
        let loaded = decode("""
            version: 1
            robots:
              /image/resise: {}
              /image/resize:
                widht: {type: integer}
                width: {type: integer}
            """, environment: [:])
        XCTAssertNotNil(loaded.value, "warnings do not refuse the policy")
        XCTAssertEqual(loaded.diagnostics.map(\.id), ["policy.unknown-robot", "policy.unknown-parameter"])
        XCTAssertEqual(loaded.diagnostics.map(\.severity), [.warning, .warning])
        XCTAssertEqual(loaded.diagnostics.map { $0.location?.line }, [3, 5])
        XCTAssertEqual(loaded.diagnostics.map(\.hint), ["did you mean '/image/resize'?", "did you mean 'width'?"])
    }
}
