import Basics
import Foundation

/// Environment interpolation in scalars: `${VAR}`, `${VAR:-default}` and `$$` for a literal `$`.
public enum Interpolation {
    /// What interpolating one scalar gave.
    public enum Outcome: Equatable, Sendable {
        /// The text with every reference replaced.
        case text(String)
        /// A variable without a default is not set; `offset` is its character offset in the scalar.
        case unset(name: String, offset: Int)
        /// The syntax is wrong at `offset`.
        case malformed(reason: String, offset: Int)
    }

    /// Replaces references in `text` with values from `environment`. A `$` followed by anything
    /// other than `{` or `$` stays as it is.
    public static func expand(_ text: String, environment: [String: String]) -> Outcome {
        guard text.contains("$") else { return .text(text) }
        let characters = Array(text)
        var output = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            guard character == "$", index + 1 < characters.count else {
                output.append(character)
                index += 1
                continue
            }
            let next = characters[index + 1]
            if next == "$" {
                output.append("$")
                index += 2
                continue
            }
            guard next == "{" else {
                output.append(character)
                index += 1
                continue
            }
            guard let close = characters[(index + 2)...].firstIndex(of: "}") else {
                return .malformed(reason: "'${' is not closed with '}'", offset: index)
            }
            let body = String(characters[(index + 2)..<close])
            let name: String
            let fallback: String?
            if let separator = body.range(of: ":-") {
                name = String(body[..<separator.lowerBound])
                fallback = String(body[separator.upperBound...])
            } else {
                name = body
                fallback = nil
            }
            if fallback == nil, isAssemblyPlaceholder(name) {
                // `${file.size}`, `${fields.title}`: Transloadit's own placeholders, kept for the service.
                output += "${" + body + "}"
                index = close + 1
                continue
            }
            guard isVariableName(name) else {
                guard fallback == nil, !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                    return .malformed(reason: "'\(name)' is not a valid variable name", offset: index)
                }
                // Not a variable name: one of Transloadit's expressions (`${file.size <= 720}`,
                // `${Math.max(file.meta.width, 100)}`), evaluated by the service.
                output += "${" + body + "}"
                index = close + 1
                continue
            }
            if let value = environment[name], !(value.isEmpty && fallback != nil) {
                output += value
            } else if let fallback {
                output += fallback
            } else {
                return .unset(name: name, offset: index)
            }
            index = close + 1
        }
        return .text(output)
    }

    /// The environment variables `text` refers to (`${NAME}` and `${NAME:-default}`), in order;
    /// Assembly placeholders, expressions and `$$` escapes are not references.
    public static func referencedVariables(in text: String) -> [String] {
        guard text.contains("${") else { return [] }
        var names: [String] = []
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            let next = rest.index(after: dollar)
            guard next < rest.endIndex else { break }
            if rest[next] == "$" {
                rest = rest[rest.index(after: next)...]
                continue
            }
            guard rest[next] == "{", let close = rest[next...].firstIndex(of: "}") else {
                rest = rest[next...]
                continue
            }
            let body = rest[rest.index(after: next)..<close]
            let name = String(body.range(of: ":-").map { body[..<$0.lowerBound] } ?? body)
            if isVariableName(name) { names.append(name) }
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    /// Transloadit's Assembly variables whose names have no dot.
    public static let undottedAssemblyVariables: Set<String> = ["unique_prefix", "unique_original_prefix"]

    /// Dotted names such as `file.meta.width` or `fields.title`, which environment variables (no
    /// dots) can never be, and Transloadit's few undotted ones (`unique_prefix`): Assembly
    /// placeholders, left for the service. `$${NAME}` writes any of them literally too.
    public static func isAssemblyPlaceholder(_ name: String) -> Bool {
        if undottedAssemblyVariables.contains(name) { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count > 1 && isVariableName(String(parts[0])) && parts.dropFirst().allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0 == "-" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
        }
    }

    /// Letters, digits and underscores, not starting with a digit.
    public static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !(first.properties.numericType != nil) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }
}
