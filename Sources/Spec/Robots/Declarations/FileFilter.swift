import Basics

/// `/file/filter`: keeps the files that `accepts` allows and `declines` does not.
public enum FileFilter: RobotDeclaration {
    public static let names = ["/file/filter"]
    public static let inputs = RobotInputs.anyFile
    public static let digest = RobotDigest.perSourceFile
    /// The operators a condition may use.
    public static let operators: Set<String> = ["==", "!=", "<", ">", "<=", ">=", "regex", "!regex", "includes", "!includes"]

    /// `[left, operator, right]`, whose sides may hold `${file.*}` placeholders.
    public struct Condition: Sendable, Equatable {
        /// What is compared.
        public var left: JSONValue
        /// How (`==`, `regex`, `includes`, ...).
        public var op: String
        /// What it is compared with.
        public var right: JSONValue
    }

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case accepts, declines
            case conditionType = "condition_type"
            case errorOnDecline = "error_on_decline"

            public var localValues: [String]? { self == .conditionType ? ["and", "or"] : nil }
        }

        /// What a file must match to be kept (nil: every file).
        public let accepts: [Condition]?
        /// What a kept file must not match (nil: nothing).
        public let declines: [Condition]?
        /// Whether every condition must hold (`condition_type: and`), else one.
        public let all: Bool
        /// Whether a declined file fails the step.
        public let errorOnDecline: Bool

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            accepts = try options.value(.accepts).map { value throws(RobotOptionError) in try Self.conditions(value, of: .accepts) }
            declines = try options.value(.declines).map { value throws(RobotOptionError) in try Self.conditions(value, of: .declines) }
            all = try options.choice(.conditionType, default: "or") == "and"
            errorOnDecline = try options.bool(.errorOnDecline, default: false)
        }

        private static func conditions(_ value: JSONValue, of option: Option) throws(RobotOptionError) -> [Condition] {
            guard let items = value.arrayValue else {
                throw RobotOptionError(option, "conditions must be a list of [value, operator, value]")
            }
            var conditions: [Condition] = []
            for item in items {
                guard let parts = item.arrayValue, parts.count == 3, let op = parts[1].stringValue, operators.contains(op) else {
                    throw RobotOptionError(option, "each condition is [value, operator, value] with an operator among " + operators.sorted().joined(separator: " "))
                }
                conditions.append(Condition(left: parts[0], op: op, right: parts[2]))
            }
            return conditions
        }
    }
}
