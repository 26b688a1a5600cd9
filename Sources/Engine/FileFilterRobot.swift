import Foundation
import Basics

/// `/file/filter`: keeps the files that `accepts` allows and `declines` does not. Conditions are
/// `[left, operator, right]` with placeholders such as `${file.size}`, `${file.mime}`,
/// `${file.ext}`, `${file.meta.width}`; `condition_type` is `or` (default) or `and`.
struct FileFilterRobot: Sendable {
    static let operators: Set<String> = ["==", "!=", "<", ">", "<=", ">=", "regex", "!regex", "includes", "!includes"]

    struct Condition: Sendable {
        var left: JSONValue
        var op: String
        var right: JSONValue
    }

    let accepts: [Condition]?
    let declines: [Condition]?
    let all: Bool
    let errorOnDecline: Bool

    init(options: [String: JSONValue]) throws(RobotError) {
        accepts = try options["accepts"].map(Self.conditions)
        declines = try options["declines"].map(Self.conditions)
        let type = try StepOptions(options: options).choice("condition_type", of: "/file/filter", default: "or")
        all = type == "and"
        errorOnDecline = try StepOptions(options: options).bool("error_on_decline", default: false)
    }

    func filter(_ files: [AssemblyFile]) throws(RobotError) -> [AssemblyFile] {
        var kept: [AssemblyFile] = []
        for file in files {
            let accepted = try accepts.map { conditions throws(RobotError) in try matches(conditions, file) } ?? true
            let declined = try declines.map { conditions throws(RobotError) in try matches(conditions, file) } ?? false
            if accepted && !declined {
                var passed = file
                passed.id = AssemblyFile.newID()
                kept.append(passed)
            } else if errorOnDecline {
                throw RobotError(code: .fileFilterDeclinedFile, message: "'\(file.name)' was declined by the filter")
            }
        }
        return kept
    }

    private func matches(_ conditions: [Condition], _ file: AssemblyFile) throws(RobotError) -> Bool {
        var outcomes: [Bool] = []
        for condition in conditions { outcomes.append(try evaluate(condition, file)) }
        return all ? outcomes.allSatisfy { $0 } : outcomes.contains(true)
    }

    private func evaluate(_ condition: Condition, _ file: AssemblyFile) throws(RobotError) -> Bool {
        let left = resolve(condition.left, file)
        let right = resolve(condition.right, file)
        let numbers = (Double(left), Double(right))
        switch condition.op {
        case "==": return numbers.0 != nil && numbers.0 == numbers.1 || left == right
        case "!=": return !(numbers.0 != nil && numbers.0 == numbers.1 || left == right)
        case "<", ">", "<=", ">=":
            guard let l = numbers.0, let r = numbers.1 else { return false }
            switch condition.op {
            case "<": return l < r
            case ">": return l > r
            case "<=": return l <= r
            default: return l >= r
            }
        case "regex", "!regex":
            // A pattern that is not one is the step's mistake, said as such: never "no match".
            let expression: NSRegularExpression
            do { expression = try NSRegularExpression(pattern: right) } catch {
                throw RobotError(code: .invalidStepParameter, message: "'\(TerminalText.printable(right))' is not a regular expression (\(condition.op) in a condition)")
            }
            let found = expression.firstMatch(in: left, range: NSRange(left.startIndex..., in: left)) != nil
            return condition.op == "regex" ? found : !found
        case "includes": return left.contains(right)
        default: return !left.contains(right)
        }
    }

    /// A condition value with `${file.*}` placeholders replaced.
    private func resolve(_ value: JSONValue, _ file: AssemblyFile) -> String {
        guard case .string(var text) = value else {
            if case .double(let number) = value { return String(number) }
            return value.serialized()
        }
        let facts: [String: String] = [
            "file.size": String(file.size), "file.mime": file.mime, "file.ext": file.ext, "file.name": file.name,
            "file.basename": file.basename, "file.field": file.field, "file.type": String(file.mime.split(separator: "/").first ?? ""),
        ]
        for (key, fact) in facts { text = text.replacingOccurrences(of: "${\(key)}", with: fact) }
        for (key, meta) in file.meta {
            text = text.replacingOccurrences(of: "${file.meta.\(key)}", with: meta.stringValue ?? meta.serialized())
        }
        return text
    }

    private static func conditions(_ value: JSONValue) throws(RobotError) -> [Condition] {
        guard let items = value.arrayValue else {
            throw RobotError(code: .invalidStepParameter, message: "conditions must be a list of [value, operator, value]")
        }
        var conditions: [Condition] = []
        for item in items {
            guard let parts = item.arrayValue, parts.count == 3, let op = parts[1].stringValue, operators.contains(op) else {
                throw RobotError(code: .invalidStepParameter, message: "each condition is [value, operator, value] with an operator among "
                    + operators.sorted().joined(separator: " "))
            }
            conditions.append(Condition(left: parts[0], op: op, right: parts[2]))
        }
        return conditions
    }
}
