internal import CYAML
import Foundation
import Basics

/// Turns libyaml's error state into a diagnostic with a location and a hint.
enum SyntaxError {
    static func diagnostic(from parser: yaml_parser_t, data: Data, file: String) -> Diagnostic {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        let context = parser.context.map { String(cString: $0) }
        let message = context.map { "\(problem) \($0)" } ?? problem
        let location: SourceLocation
        if parser.error == YAML_READER_ERROR {
            location = InputCheck.location(ofByte: Int(parser.problem_offset), in: data, file: file)
        } else {
            location = SourceLocation(
                file: file, line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1)
        }
        var notes: [Diagnostic.Note] = []
        if let context, parser.error != YAML_READER_ERROR {
            let start = SourceLocation(
                file: file, line: Int(parser.context_mark.line) + 1, column: Int(parser.context_mark.column) + 1)
            if start != location { notes.append(.init("\(context.replacingOccurrences(of: "while ", with: "")) that starts here", at: start)) }
        }
        let isAlias = context?.contains("alias") == true
        return .error(
            "yaml.syntax", message, at: location,
            hint: isAlias ? aliasHint(parser.context_mark, data: data) : hint(for: problem, line: location.line, data: data), notes: notes)
    }

    /// A value that starts with `*` is an alias to YAML; most often it is a glob left unquoted.
    private static func aliasHint(_ start: yaml_mark_t, data: Data) -> String {
        let text = Array(InputCheck.line(Int(start.line) + 1, of: data).unicodeScalars)
        let from = min(Int(start.column), text.count)
        let pattern = String(String.UnicodeScalarView(text[from...].prefix { !" ,]}#\t".unicodeScalars.contains($0) }))
        let example = pattern.isEmpty ? "\"*.png\"" : "\"\(pattern)\""
        return "a value starting with '*' is a YAML alias; quote a file pattern: \(example)"
    }

    private static func hint(for problem: String, line: Int, data: Data) -> String {
        let text = InputCheck.line(line, of: data)
        let indentation = text.prefix { $0 == " " || $0 == "\t" }
        if indentation.contains("\t") || problem.contains("cannot start any token") && text.contains("\t") {
            return "YAML does not allow tabs for indentation; indent with spaces"
        }
        if problem.contains("expected ',' or ']'") {
            return "close the list with ']', or quote values that contain ',' '[' or ']'"
        }
        if problem.contains("expected ',' or '}'") {
            return "close the mapping with '}', or quote values that contain ',' '{' or '}' (such as '${VAR}')"
        }
        if problem.contains("mapping values are not allowed") {
            return "a value containing ': ' must be quoted, or a nested mapping must go on its own indented lines"
        }
        if problem.contains("did not find expected key") || problem.contains("did not find expected '-'") {
            return "check the indentation of this line against the lines above it"
        }
        if problem.contains("found undefined") || problem.contains("found character") {
            return "quote the value if it starts with a special character such as '@', '`', '%' or '*'"
        }
        return "check the YAML syntax near this position"
    }
}
