import Basics

extension NodeDecoder {
    /// A string value. Numbers and booleans are refused unless `acceptingNumbers` (for ids like `0123`).
    public func string(_ node: Node, what: String, acceptingNumbers: Bool = false) -> Located<String>? {
        guard node.scalar != nil else {
            typeMismatch(node, expected: "a string", what: what)
            return nil
        }
        switch resolve(node) {
        case .string(let text)?:
            return Located(text, at: node.location)
        case .int?, .bool?, .double?:
            // A value that came from the environment is text, whatever it looks like.
            let fromEnvironment = node.scalar?.text.contains("${") == true
            if acceptingNumbers || fromEnvironment, let text = interpolatedText(node) { return Located(text, at: node.location) }
            typeMismatch(node, expected: "a string", what: what, hint: "put the value in quotes to make it a string")
            return nil
        case nil:
            return nil
        default:
            typeMismatch(node, expected: "a string", what: what, hint: "put the value in quotes to make it a string")
            return nil
        }
    }

    /// A string that must not be empty.
    public func nonEmptyString(_ node: Node, what: String) -> Located<String>? {
        guard let value = string(node, what: what) else { return nil }
        if value.value.isEmpty {
            report(.error("\(domain).empty-value", "\(what) must not be empty", at: node.location))
            return nil
        }
        return value
    }

    /// An integer, optionally within bounds.
    public func int(_ node: Node, what: String, minimum: Int? = nil, maximum: Int? = nil) -> Located<Int>? {
        guard node.scalar != nil else {
            typeMismatch(node, expected: "an integer", what: what)
            return nil
        }
        guard let resolved = resolve(node) else { return nil }
        guard case .int(let value) = resolved else {
            typeMismatch(node, expected: "an integer", what: what)
            return nil
        }
        if let minimum, value < minimum {
            report(.error("\(domain).out-of-range", "\(what) must be at least \(minimum), found \(value)", at: node.location))
            return nil
        }
        if let maximum, value > maximum {
            report(.error("\(domain).out-of-range", "\(what) must be at most \(maximum), found \(value)", at: node.location))
            return nil
        }
        return Located(value, at: node.location)
    }

    /// A boolean (`true` or `false`).
    public func bool(_ node: Node, what: String) -> Bool? {
        guard node.scalar != nil, let resolved = resolve(node) else {
            if node.scalar == nil { typeMismatch(node, expected: "true or false", what: what) }
            return nil
        }
        guard case .bool(let value) = resolved else {
            typeMismatch(node, expected: "true or false", what: what)
            return nil
        }
        return value
    }

    /// A duration such as `15m` or `1h30m`.
    public func duration(_ node: Node, what: String) -> Located<Duration>? {
        guard let text = string(node, what: what, acceptingNumbers: true) else { return nil }
        guard let duration = DurationText.parse(text.value) else {
            if DurationText.isTooLong(text.value) {
                report(.error(
                    "\(domain).bad-duration", "\(what) '\(text.value)' is too long: a duration is \(DurationText.limit)", at: node.location,
                    hint: "write a shorter duration, such as 365d"))
                return nil
            }
            report(.error(
                "\(domain).bad-duration", "\(what) '\(text.value)' is not a duration", at: node.location,
                hint: "write \(DurationText.accepted)"))
            return nil
        }
        return Located(duration, at: node.location)
    }

    /// A size such as `2GB`, `500MiB` or a plain number of bytes.
    public func size(_ node: Node, what: String) -> Located<ByteSize>? {
        guard let text = string(node, what: what, acceptingNumbers: true) else { return nil }
        guard let size = ByteSize(parsing: text.value) else {
            report(.error(
                "\(domain).bad-size", "\(what) '\(text.value)' is not a size", at: node.location,
                hint: "write a whole number of bytes or a number with a unit: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"))
            return nil
        }
        return Located(size, at: node.location)
    }

    /// One string or a sequence of strings.
    public func stringList(_ node: Node, what: String) -> [Located<String>]? {
        if node.scalar != nil {
            return string(node, what: what).map { [$0] }
        }
        guard let elements = node.elements else {
            typeMismatch(node, expected: "a string or a list of strings", what: what)
            return nil
        }
        let values = elements.map { string($0, what: "each entry of \(what)") }
        return values.contains { $0 == nil } ? nil : values.compactMap { $0 }
    }
}
