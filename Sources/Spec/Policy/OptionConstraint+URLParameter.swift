import Basics

extension OptionConstraint {
    /// Why the URL parameter `text` is not allowed, or `nil` when it is: a URL carries only text,
    /// which passes as a string or as the number or boolean it spells (`400`, `true`).
    public func violation(ofParameter text: String) -> String? {
        let string = JSONValue.string(text)
        guard let stringProblem = violation(of: string) else { return nil }
        guard let typed = Self.reading(text) else { return stringProblem }
        guard let typedProblem = violation(of: typed) else { return nil }
        // A rule about numbers or booleans says what it expects of the number the text spells.
        let numeric = minimum != nil || maximum != nil || type == .integer || type == .number || type == .boolean
        return numeric ? typedProblem : stringProblem
    }

    /// The types a URL parameter's text can be read as.
    public static let urlParameterTypes: [ValueType] = [.string, .integer, .number, .boolean, .any]

    /// The number or boolean `text` spells, if it spells one.
    private static func reading(_ text: String) -> JSONValue? {
        if let integer = Int(text) { return .int(integer) }
        if let number = Double(text), number.isFinite { return .double(number) }
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default: return nil
        }
    }
}
