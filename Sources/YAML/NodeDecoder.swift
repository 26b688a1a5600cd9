import PipelineCore

/// Reads typed values out of nodes, interpolating the environment and collecting every problem
/// as a located diagnostic instead of stopping at the first.
public final class NodeDecoder {
    /// Everything reported so far, in order.
    public private(set) var diagnostics: [Diagnostic] = []
    /// The variables `${VAR}` refers to.
    public let environment: [String: String]
    /// The first part of diagnostic ids: `manifest`, `policy`.
    public let domain: String
    /// When set, a reference to an unset variable makes the value absent instead of an error.
    public var toleratesUnsetVariables = false

    /// Creates a decoder that interpolates from `environment` and reports ids under `domain`.
    public init(environment: [String: String], domain: String = "manifest") {
        self.environment = environment
        self.domain = domain
    }

    /// Adds a diagnostic.
    public func report(_ diagnostic: Diagnostic) {
        diagnostics.append(diagnostic)
    }

    /// Runs `body` with unset variables tolerated (values that need them come back `nil`).
    public func toleratingUnsetVariables<T>(_ body: () -> T) -> T {
        let previous = toleratesUnsetVariables
        toleratesUnsetVariables = true
        defer { toleratesUnsetVariables = previous }
        return body()
    }

    /// A scalar's interpolated, resolved value; `nil` (after reporting) when it cannot be had.
    public func resolve(_ node: Node) -> ResolvedScalar? {
        guard let scalar = node.scalar, let text = interpolatedText(node) else { return nil }
        return Scalar(text, style: scalar.style).resolved(tag: node.tag)
    }

    /// A scalar's text with environment references replaced; `nil` (after reporting) on failure.
    public func interpolatedText(_ node: Node) -> String? {
        guard let scalar = node.scalar else { return nil }
        switch Interpolation.expand(scalar.text, environment: environment) {
        case .text(let text):
            return text
        case .unset(let name, let offset):
            if !toleratesUnsetVariables {
                report(.error(
                    "\(domain).unset-variable", "environment variable '\(name)' is not set",
                    at: location(in: node, offset: offset),
                    hint: "set \(name) in the environment, or give a default with '${\(name):-value}'"))
            }
            return nil
        case .malformed(let reason, let offset):
            report(.error(
                "\(domain).bad-interpolation", reason, at: location(in: node, offset: offset),
                hint: "write '${NAME}' or '${NAME:-default}'; use '$$' for a literal '$'"))
            return nil
        }
    }

    /// The location of a character offset inside a single-line scalar.
    private func location(in node: Node, offset: Int) -> SourceLocation {
        guard let scalar = node.scalar, !scalar.text.contains("\n") else { return node.location }
        var location = node.location
        let quote = (scalar.style == .singleQuoted || scalar.style == .doubleQuoted) ? 1 : 0
        if scalar.style == .plain || quote == 1 {
            location.column += quote + offset
        }
        return location
    }

    /// Reports that `node` should have been `expected`.
    public func typeMismatch(_ node: Node, expected: String, what: String, hint: String? = nil) {
        report(.error(
            "\(domain).wrong-type", "\(what) must be \(expected), found \(node.kindDescription)",
            at: node.location, hint: hint))
    }
}
