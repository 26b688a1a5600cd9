import Basics
import Spec

/// A step's options read strictly: a value of the wrong type is an error naming the option, never
/// silently replaced by the default.
struct StepOptions: Sendable {
    let options: [String: JSONValue]

    /// The whole number under `key` within `range`, or `fallback` when the step does not set it.
    func integer(_ key: String, in range: ClosedRange<Int>, default fallback: Int) throws(RobotError) -> Int {
        try integer(key, in: range) ?? fallback
    }

    /// The whole number under `key` within `range` (`2.0` counts as 2), or nil when the step does not set it.
    func integer(_ key: String, in range: ClosedRange<Int>) throws(RobotError) -> Int? {
        guard let value = options[key], value != .null else { return nil }
        guard let number = value.intValue ?? value.doubleValue.flatMap({ Int(exactly: $0) }), range.contains(number) else {
            throw RobotError(code: .invalidStepParameter, message: "'\(key)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(Self.described(value))")
        }
        return number
    }

    /// The boolean under `key`, or `fallback` when the step does not set it.
    func bool(_ key: String, default fallback: Bool) throws(RobotError) -> Bool {
        guard let value = options[key], value != .null else { return fallback }
        guard let flag = value.boolValue else {
            throw RobotError(code: .invalidStepParameter, message: "'\(key)' must be true or false, not \(Self.described(value))")
        }
        return flag
    }

    /// The non-empty string under `key`, or `fallback` when the step does not set it.
    func string(_ key: String, default fallback: String) throws(RobotError) -> String {
        guard let value = options[key], value != .null else { return fallback }
        guard let text = value.stringValue, !text.isEmpty else {
            throw RobotError(code: .invalidStepParameter, message: "'\(key)' must be a non-empty string, not \(Self.described(value))")
        }
        return text
    }

    /// The text under `key`, one of the values the local engine runs for `robot`'s option
    /// (`RobotCatalog.localValues`, the list `validate` checks too), or `fallback` when unset.
    func choice(_ key: String, of robot: String, default fallback: String) throws(RobotError) -> String {
        let value = try string(key, default: fallback)
        if let problem = RobotCatalog.localValueProblem(robot: robot, option: key, value: .string(value)) {
            throw RobotError(code: .invalidStepParameter, message: problem.message + "; " + problem.hint)
        }
        return value
    }

    /// The strings under `key`: one string or a list of them; nil when the step does not set it.
    func strings(_ key: String) throws(RobotError) -> [String]? {
        guard let value = options[key], value != .null else { return nil }
        if let text = value.stringValue { return [text] }
        guard let items = value.arrayValue?.map(\.stringValue), !items.contains(nil) else {
            throw RobotError(code: .invalidStepParameter, message: "'\(key)' must be a string or a list of strings, not \(Self.described(value))")
        }
        return items.compactMap { $0 }
    }

    /// A wrong value for a message: short scalars as they are, lists and objects by their kind
    /// only (they may hold credentials, and the status is readable by whoever has its URL).
    private static func described(_ value: JSONValue) -> String {
        switch value {
        case .object: "an object"
        case .array: "a list of other values"
        case .string(let text): "'\(TerminalText.printable(String(text.prefix(40))))\(text.count > 40 ? "…" : "")'"
        default: value.serialized()
        }
    }
}
