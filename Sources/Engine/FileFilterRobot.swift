import Foundation
import Spec
import Basics

/// `/file/filter`: keeps the files that `accepts` allows and `declines` does not. Conditions are
/// `[left, operator, right]` with placeholders such as `${file.size}`, `${file.mime}`,
/// `${file.ext}`, `${file.meta.width}`; `condition_type` is `or` (default) or `and`.
struct FileFilterRobot: Sendable {
    typealias Condition = FileFilter.Condition

    let accepts: [Condition]?
    let declines: [Condition]?
    let all: Bool
    let errorOnDecline: Bool

    init(_ parameters: FileFilter.Parameters) {
        accepts = parameters.accepts
        declines = parameters.declines
        all = parameters.all
        errorOnDecline = parameters.errorOnDecline
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
}

extension FileFilter: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork {
        let filter = FileFilterRobot(parameters)
        return .allFiles { inputs, _ throws(RobotError) in try filter.filter(inputs) }
    }
}
