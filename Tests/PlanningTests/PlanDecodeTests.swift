import Foundation
import Basics
import Planning
import XCTest

final class PlanDecodeTests: XCTestCase {
    private enum Step {
        case key(String)
        case index(Int)
    }

    /// `value` with the member at `path` replaced, or removed when `replacement` is nil.
    private func replacing(_ value: JSONValue, at path: ArraySlice<Step>, with replacement: JSONValue?) -> JSONValue {
        guard let first = path.first else { return replacement ?? .null }
        switch (first, value) {
        case (.key(let key), .object(var members)):
            if path.count == 1, replacement == nil {
                members[key] = nil
            } else {
                members[key] = replacing(members[key] ?? .null, at: path.dropFirst(), with: replacement)
            }
            return .object(members)
        case (.index(let index), .array(var elements)):
            elements[index] = replacing(elements[index], at: path.dropFirst(), with: replacement)
            return .array(elements)
        default:
            XCTFail("\(path) does not fit \(value)")
            return value
        }
    }

    private func problems(after path: [Step], becomes replacement: JSONValue?) -> [Diagnostic] {
        let json = replacing(PlanFixtures.samplePlan().json, at: path[...], with: replacement)
        do {
            _ = try Plan.decode(Data(json.serialized(pretty: true).utf8), file: "plan.json")
            return []
        } catch {
            return error.diagnostics
        }
    }

    private func invalid(_ message: String) -> Diagnostic {
        Diagnostic(id: "plan.invalid", message: "'plan.json': \(message)", hint: "write plans with 'pipeline plan --out FILE'")
    }

    func testMissingOrMistypedFieldsNameTheirJSONPath() {
        let cases: [([Step], JSONValue?, String, UInt)] = [
            ([.key("version")], .int(2), "'version' must be 1", #line),
            ([.key("version")], nil, "'version' must be 1", #line),
            ([.key("pipeline")], nil, "pipeline must be a string", #line),
            ([.key("manifest")], .int(1), "manifest must be a string", #line),
            ([.key("assemblies")], nil, "'assemblies' must be an array", #line),
            ([.key("assemblies")], .object([:]), "'assemblies' must be an array", #line),
            ([.key("assemblies"), .index(0), .key("id")], nil, "assemblies[0].id must be a string", #line),
            ([.key("assemblies"), .index(0), .key("job")], .null, "assemblies[0].job must be a string", #line),
            ([.key("assemblies"), .index(1), .key("instructions")], .array([]), "assemblies[1].instructions must be an object", #line),
            ([.key("assemblies"), .index(2), .key("instructions")], nil, "assemblies[2].instructions must be an object", #line),
            ([.key("assemblies"), .index(0), .key("files")], nil, "assemblies[0].files must be an array", #line),
            ([.key("assemblies"), .index(0), .key("files"), .index(1), .key("sha256")], nil,
             "assemblies[0].files[1].sha256 must be a string", #line),
            ([.key("assemblies"), .index(2), .key("files"), .index(0), .key("path")], .int(5),
             "assemblies[2].files[0].path must be a string", #line),
            ([.key("assemblies"), .index(0), .key("files"), .index(0), .key("size")], .int(-1),
             "assemblies[0].files[0].size must be a non-negative integer", #line),
            ([.key("assemblies"), .index(0), .key("files"), .index(0), .key("size")], .string("10"),
             "assemblies[0].files[0].size must be a non-negative integer", #line),
        ]
        for (path, replacement, message, line) in cases {
            XCTAssertEqual(problems(after: path, becomes: replacement), [invalid(message)], message, line: line)
        }
    }

    func testEveryProblemIsReported() {
        var json = PlanFixtures.samplePlan().json
        json = replacing(json, at: [Step.key("assemblies"), .index(0), .key("files"), .index(0), .key("sha256")][...], with: nil)
        json = replacing(json, at: [Step.key("assemblies"), .index(1), .key("files"), .index(0), .key("size")][...], with: .double(1.5))
        XCTAssertThrowsError(try Plan.decode(Data(json.serialized().utf8), file: "plan.json")) { error in
            XCTAssertEqual((error as? DiagnosticsError)?.diagnostics, [
                invalid("assemblies[0].files[0].sha256 must be a string"),
                invalid("assemblies[1].files[0].size must be a non-negative integer"),
            ])
        }
    }

    func testNonObjectDocument() {
        XCTAssertThrowsError(try Plan.decode(Data("[1, 2]".utf8), file: "plan.json")) { error in
            XCTAssertEqual((error as? DiagnosticsError)?.diagnostics, [invalid("'version' must be 1")])
        }
    }
}
