import Basics

/// A step option the local engine cannot run: it names the option (the engine adds the step),
/// and the status reports it as `INVALID_STEP_PARAMETER`.
public struct RobotOptionError: Error, Sendable, Equatable {
    /// The option's key; nil when the options as a whole cannot be read.
    public var option: String?
    /// What is wrong, naming the option.
    public var message: String

    /// An error about the option named `option` saying `message`.
    public init(_ option: String?, _ message: String) {
        self.option = option
        self.message = message
    }

    /// An error about `option` saying `message`.
    public init(_ option: some RobotOption, _ message: String) {
        self.init(option.stringValue, message)
    }

    /// A wrong value for a message: short scalars as they are, lists and objects by their kind
    /// only (they may hold credentials, and the status is readable by whoever has its URL).
    static func described(_ value: JSONValue) -> String {
        switch value {
        case .object: "an object"
        case .array: "a list of other values"
        case .string(let text): "'\(TerminalText.printable(String(text.prefix(40))))\(text.count > 40 ? "…" : "")'"
        default: value.serialized()
        }
    }
}

/// Reads a robot's options strictly, by their declared keys: a value of the wrong type is an
/// error naming the option, never silently replaced by the default.
public struct OptionReader<Option: RobotOption> {
    private let container: KeyedDecodingContainer<Option>
    /// The robot whose options these are.
    public let robot: String

    private let reads: StepOptionsDecoder.ReadKeys?

    /// The options `decoder` holds.
    public init(_ decoder: any Decoder) throws {
        container = try decoder.container(keyedBy: Option.self)
        let context = StepOptionsDecoder.current
        robot = context?.robot ?? ""
        reads = context?.reads
    }

    /// Whether the step gives `option` at all (`null` included).
    public func isGiven(_ option: Option) -> Bool {
        reads?.keys.withLock { _ = $0.insert(option.stringValue) }
        return container.contains(option)
    }

    /// The value under `option` as written; nil when the step does not give it.
    public func value(_ option: Option) throws -> JSONValue? {
        // Not `decodeIfPresent`, which takes `null` for absent: a step that writes `null` gave it.
        guard isGiven(option) else { return nil }
        return try container.decode(JSONValue.self, forKey: option)
    }

    /// The value under `option`; nil when it is not given or `null`.
    public func set(_ option: Option) throws -> JSONValue? {
        guard let value = try value(option), value != .null else { return nil }
        return value
    }

    /// The whole number under `option` within `range`, or `fallback` when the step does not set it.
    public func integer(_ option: Option, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
        try integer(option, in: range) ?? fallback
    }

    /// The whole number under `option` within `range` (`2.0` counts as 2), or nil when the step does not set it.
    public func integer(_ option: Option, in range: ClosedRange<Int>) throws -> Int? {
        guard let value = try set(option) else { return nil }
        guard let number = value.intValue ?? value.doubleValue.flatMap({ Int(exactly: $0) }), range.contains(number) else {
            throw RobotOptionError(option, "'\(option.stringValue)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(RobotOptionError.described(value))")
        }
        return number
    }

    /// The boolean under `option`, or `fallback` when the step does not set it.
    public func bool(_ option: Option, default fallback: Bool) throws -> Bool {
        guard let value = try set(option) else { return fallback }
        guard let flag = value.boolValue else {
            throw RobotOptionError(option, "'\(option.stringValue)' must be true or false, not \(RobotOptionError.described(value))")
        }
        return flag
    }

    /// The non-empty string under `option`, or `fallback` when the step does not set it.
    public func string(_ option: Option, default fallback: String) throws -> String {
        guard let value = try set(option) else { return fallback }
        guard let text = value.stringValue, !text.isEmpty else {
            throw RobotOptionError(option, "'\(option.stringValue)' must be a non-empty string, not \(RobotOptionError.described(value))")
        }
        return text
    }

    /// The text under `option`, one of the values the local engine runs (`Option.localValues`,
    /// the list `validate` checks too), or `fallback` when unset.
    public func choice(_ option: Option, default fallback: String) throws -> String {
        let value = try string(option, default: fallback)
        if let allowed = option.localValues,
           let problem = RobotCatalog.valueProblem(robot: robot, option: option.stringValue, text: value, allowed: allowed) {
            throw RobotOptionError(option, problem.message + "; " + problem.hint)
        }
        return value
    }

    /// The strings under `option`: one string or a list of them; nil when the step does not set it.
    public func strings(_ option: Option) throws -> [String]? {
        guard let value = try set(option) else { return nil }
        if let text = value.stringValue { return [text] }
        guard let items = value.arrayValue?.map(\.stringValue), !items.contains(nil) else {
            throw RobotOptionError(option, "'\(option.stringValue)' must be a string or a list of strings, not \(RobotOptionError.described(value))")
        }
        return items.compactMap { $0 }
    }
}
