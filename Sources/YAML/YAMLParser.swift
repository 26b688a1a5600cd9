internal import CYAML
import Foundation
import Basics

/// Parses one YAML document with libyaml's event API into a `Node` tree that keeps locations.
///
/// Aliases are resolved, merge keys (`<<`) applied and duplicate keys reported. Alias expansion is
/// bounded by `maxExpandedNodes`, so a "billion laughs" document fails fast in bounded memory.
public struct YAMLParser: Sendable {
    /// The file name used in locations.
    public var file: String
    /// The largest number of nodes the document may have once aliases are expanded.
    public var maxExpandedNodes: Int
    /// The deepest nesting of collections accepted.
    public var maxDepth: Int

    /// Creates a parser for text from `file`.
    public init(file: String, maxExpandedNodes: Int = 100_000, maxDepth: Int = 128) {
        self.file = file
        self.maxExpandedNodes = maxExpandedNodes
        self.maxDepth = maxDepth
    }

    /// The document's root node, or `nil` for an empty document.
    public func parse(_ data: Data) throws(DiagnosticsError) -> Node? {
        if let problem = InputCheck.firstProblem(in: data, file: file) {
            throw DiagnosticsError(problem)
        }
        var builder = TreeBuilder(file: file, maxExpandedNodes: maxExpandedNodes, maxDepth: maxDepth)
        let outcome: Result<Node?, DiagnosticsError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else {
                return .failure(DiagnosticsError(.error("internal.yaml", "libyaml could not be initialized (out of memory?)")))
            }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
            return Result { () throws(DiagnosticsError) -> Node? in
                try Self.run(&parser, into: &builder, data: data, file: file)
            }
        }
        let root = try outcome.get()
        if !builder.diagnostics.isEmpty { throw DiagnosticsError(builder.diagnostics) }
        return root
    }

    private static func run(
        _ parser: inout yaml_parser_t, into builder: inout TreeBuilder, data: Data, file: String
    ) throws(DiagnosticsError) -> Node? {
        var documents = 0
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else {
                throw DiagnosticsError(SyntaxError.diagnostic(from: parser, data: data, file: file))
            }
            defer { yaml_event_delete(&event) }
            let location = SourceLocation(
                file: file, line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return builder.root
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    throw DiagnosticsError(.error(
                        "yaml.multiple-documents", "the file holds more than one YAML document", at: location,
                        hint: "keep one document per file; remove the '---' separator"))
                }
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = string(scalar.value, Int(scalar.length))
                let node = Node(
                    .scalar(Scalar(text, style: style(scalar.style))), at: location, tag: optionalString(scalar.tag))
                try builder.add(node, weight: 1, anchor: optionalString(scalar.anchor))
            case YAML_ALIAS_EVENT:
                try builder.alias(optionalString(event.data.alias.anchor) ?? "", at: location)
            case YAML_SEQUENCE_START_EVENT:
                let start = event.data.sequence_start
                try builder.open(.sequence, at: location, tag: optionalString(start.tag), anchor: optionalString(start.anchor))
            case YAML_MAPPING_START_EVENT:
                let start = event.data.mapping_start
                try builder.open(.mapping, at: location, tag: optionalString(start.tag), anchor: optionalString(start.anchor))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                try builder.close()
            default:
                break
            }
        }
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?, _ length: Int) -> String {
        guard let pointer else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    private static func optionalString(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }

    private static func style(_ style: yaml_scalar_style_t) -> Scalar.Style {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .plain
        }
    }
}
