import Basics

extension RobotCatalog.Parameter {
    /// Why `value` is not accepted, or `nil`: its JSON type, its enum and its range. A number
    /// written as a string is refused where only numbers are taken, as a policy refuses it:
    /// one rule for both (`height: "240"` is `height: 240`).
    public func problem(with value: JSONValue) -> String? {
        if types.contains("any") { return nil }
        if case .null = value { return nullable ? nil : "must not be null" }
        let number = value.doubleValue
        if case .string(let text) = value, !types.contains("string"), types.contains("integer") || types.contains("number"), Double(text) != nil {
            return "must be \(Self.describe(types)), found the string '\(text)' (write it without quotes)"
        }
        guard accepts(value) else {
            return "must be \(Self.describe(types)), found \(Self.article(value.typeName)) \(value.typeName)"
        }
        if let allowed, !allowed.contains(where: { $0.numericallyEquals(value) }) {
            return "must be one of \(allowed.prefix(12).map(Self.show).joined(separator: ", "))\(allowed.count > 12 ? ", ..." : ""), found \(Self.show(value))"
        }
        if let number, let minimum, number < minimum { return "must be at least \(Self.show(.double(minimum))), found \(Self.show(value))" }
        if let number, let maximum, number > maximum { return "must be at most \(Self.show(.double(maximum))), found \(Self.show(value))" }
        return nil
    }

    private func accepts(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): return types.contains("string") || (types.contains("boolean") && (text == "true" || text == "false"))
        case .int: return types.contains("integer") || types.contains("number")
        case .double(let double): return types.contains("number") || (types.contains("integer") && double.rounded() == double)
        case .bool: return types.contains("boolean")
        case .array: return types.contains("array")
        case .object: return types.contains("object")
        case .null: return nullable
        }
    }

    private static func describe(_ types: [String]) -> String {
        let names = types.map { article($0) + " " + $0 }
        return names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }

    private static func article(_ word: String) -> String { "aeiou".contains(word.first ?? "x") ? "an" : "a" }

    private static func show(_ value: JSONValue) -> String {
        if case .string(let text) = value { return "'\(text)'" }
        return value.serialized()
    }
}
