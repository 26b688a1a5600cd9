import Foundation
import Basics
import XCTest
import YAML

/// Parses `data` as the file `t.yml`.
func parseYAML(_ data: Data, parser: YAMLParser = YAMLParser(file: "t.yml")) -> Result<Node?, DiagnosticsError> {
    Result { () throws(DiagnosticsError) -> Node? in try parser.parse(data) }
}

/// Parses `text` as the file `t.yml`.
func parseYAML(_ text: String, parser: YAMLParser = YAMLParser(file: "t.yml")) -> Result<Node?, DiagnosticsError> {
    parseYAML(Data(text.utf8), parser: parser)
}

/// The root of a document that must parse without diagnostics.
func parsedRoot(
    _ text: String, parser: YAMLParser = YAMLParser(file: "t.yml"), file: StaticString = #filePath, line: UInt = #line
) throws -> Node {
    switch parseYAML(text, parser: parser) {
    case .success(let node?):
        return node
    case .success(nil):
        XCTFail("the document is empty", file: file, line: line)
        throw DiagnosticsError([])
    case .failure(let error):
        XCTFail("unexpected diagnostics: \(error.diagnostics.map { "\($0.id): \($0.message)" })", file: file, line: line)
        throw error
    }
}

/// The diagnostics of input that must fail to parse.
func parseFailure(
    _ data: Data, parser: YAMLParser = YAMLParser(file: "t.yml"), file: StaticString = #filePath, line: UInt = #line
) -> [Diagnostic] {
    switch parseYAML(data, parser: parser) {
    case .success:
        XCTFail("the input parsed without diagnostics", file: file, line: line)
        return []
    case .failure(let error):
        return error.diagnostics
    }
}

/// The diagnostics of text that must fail to parse.
func parseFailure(
    _ text: String, parser: YAMLParser = YAMLParser(file: "t.yml"), file: StaticString = #filePath, line: UInt = #line
) -> [Diagnostic] {
    parseFailure(Data(text.utf8), parser: parser, file: file, line: line)
}

/// A location in `t.yml`.
func loc(_ line: Int, _ column: Int) -> SourceLocation {
    SourceLocation(file: "t.yml", line: line, column: column)
}

/// A compact picture of a node tree in document order: `{a: 1, b: [x, y]}`.
func sketch(_ node: Node?) -> String {
    guard let node else { return "<none>" }
    switch node.kind {
    case .scalar(let scalar):
        return scalar.text
    case .sequence(let elements):
        return "[" + elements.map { sketch($0) }.joined(separator: ", ") + "]"
    case .mapping(let pairs):
        return "{" + pairs.map { "\($0.keyText): \(sketch($0.value))" }.joined(separator: ", ") + "}"
    }
}

extension Node {
    /// The value of the first pair whose key is `key`.
    func member(_ key: String) -> Node? {
        pairs?.first { $0.keyText == key }?.value
    }

    /// The key node of the first pair whose key is `key`.
    func memberKey(_ key: String) -> Node? {
        pairs?.first { $0.keyText == key }?.key
    }

    /// The element at `index` of a sequence.
    func element(_ index: Int) -> Node? {
        guard let elements, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The scalar resolved under the core schema, honouring the node's tag.
    var resolvedValue: ResolvedScalar? {
        scalar?.resolved(tag: tag)
    }
}
