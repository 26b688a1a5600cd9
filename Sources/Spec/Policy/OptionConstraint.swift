import Foundation
import Basics

/// What values one robot option may take: a type, a list of values, a range and a pattern.
public struct OptionConstraint: Sendable {
    /// The JSON types an option may have.
    public enum ValueType: String, Sendable, CaseIterable {
        case string, integer, number, boolean, array, object, any
    }

    /// The required type, if any.
    public var type: ValueType?
    /// The allowed values, if limited.
    public var allowedValues: [JSONValue]?
    /// The smallest allowed number.
    public var minimum: Double?
    /// The largest allowed number.
    public var maximum: Double?
    /// A regular expression a string value must match in full.
    public var pattern: String?

    /// Creates a constraint; an empty one allows any value.
    public init(
        type: ValueType? = nil, allowedValues: [JSONValue]? = nil, minimum: Double? = nil,
        maximum: Double? = nil, pattern: String? = nil
    ) {
        self.type = type
        self.allowedValues = allowedValues
        self.minimum = minimum
        self.maximum = maximum
        self.pattern = pattern
    }

    /// Why `value` is not allowed, or `nil` when it is.
    public func violation(of value: JSONValue) -> String? {
        if let type, !Self.matches(value, type) {
            return "must be \(Self.article(type)), found \(value.typeName)"
        }
        if let allowedValues, !allowedValues.contains(where: { $0.numericallyEquals(value) }) {
            return "must be one of " + allowedValues.map { $0.serialized() }.joined(separator: ", ")
                + ", found \(value.serialized())"
        }
        if minimum != nil || maximum != nil {
            guard let number = value.doubleValue else { return "must be a number, found \(value.typeName)" }
            if let minimum, number < minimum { return "must be at least \(Self.format(minimum)), found \(value.serialized())" }
            if let maximum, number > maximum { return "must be at most \(Self.format(maximum)), found \(value.serialized())" }
        }
        if let pattern {
            guard let text = value.stringValue else { return "must be a string matching \(pattern), found \(value.typeName)" }
            if !Self.fullMatch(text, pattern: pattern) { return "must match the pattern \(pattern), found \(value.serialized())" }
        }
        return nil
    }

    /// Whether `pattern` is a regular expression this platform can compile, as it is matched (whole
    /// values: a pattern such as `(?x)a#` that swallows what anchors it is not one).
    public static func isValidPattern(_ pattern: String) -> Bool { wholeValue(pattern) != nil }

    /// `pattern` anchored at both ends of a value; nil when it does not compile.
    private static func wholeValue(_ pattern: String) -> NSRegularExpression? {
        try? NSRegularExpression(pattern: "\\A(?:\(pattern))\\z")  // nil: the policy's check refuses it
    }

    private static func fullMatch(_ text: String, pattern: String) -> Bool {
        guard let expression = wholeValue(pattern) else { return false }
        let range = NSRange(text.startIndex..., in: text)
        return expression.firstMatch(in: text, range: range) != nil
    }

    private static func matches(_ value: JSONValue, _ type: ValueType) -> Bool {
        switch (type, value) {
        case (.any, _), (.string, .string), (.boolean, .bool), (.array, .array), (.object, .object): true
        case (.integer, _): value.intValue != nil
        case (.number, .int), (.number, .double): true
        default: false
        }
    }

    private static func article(_ type: ValueType) -> String {
        switch type {
        case .integer, .array, .object: "an \(type.rawValue)"
        case .any: "any value"
        default: "a \(type.rawValue)"
        }
    }

    private static func format(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}
