import Basics
import Spec
import YAML

extension PolicySuggestion {
    /// What one option is known to take: the catalog's parameter, and the fixed set of values the
    /// robot (or, for `endpoint: local`, the local engine) takes for it, when there is one.
    struct OptionFacts {
        var parameter: RobotCatalog.Parameter?
        var fixedSet: [String]?
        /// Whose set it is, for the note: `the robot takes`, `the local engine runs`.
        var fixedSetSource = "the robot takes"
    }

    /// The facts of `option` of `robot`; the fixed set is the local engine's for a local manifest.
    func facts(robot: String, option: String) -> OptionFacts {
        let parameter = RobotCatalog.bundled.robots[robot]?.parameters[option]
        let local = manifest.endpoint?.value == .local ? RobotCatalog.localValues[robot]?[option] : nil
        let catalog = parameter?.allowed.flatMap { values -> [String]? in
            let strings = values.compactMap(\.stringValue)
            return strings.count == values.count && strings.count <= Self.fixedSetLimit ? strings : nil
        }
        return OptionFacts(parameter: parameter, fixedSet: local ?? catalog, fixedSetSource: local == nil ? "the robot takes" : "the local engine runs")
    }

    /// The most values of a robot's fixed set a suggestion lists as an `enum`.
    static let fixedSetLimit = 40

    /// A constraint (as YAML flow) allowing `values` with room, and a note saying what was seen:
    /// booleans by type; numbers as a range widened by the margin (within the robot's bounds);
    /// strings from a fixed set as that whole set, other strings as the values given; lists and
    /// objects as the values given.
    static func constraint(_ values: [JSONValue], facts: OptionFacts, margin: SuggestionMargin) -> (String, String) {
        let distinct = values.reduce(into: [JSONValue]()) { kept, value in if !kept.contains(value) && value != .null { kept.append(value) } }
        if distinct.isEmpty { return ("{}", "only null given") }
        if distinct.allSatisfy({ $0.boolValue != nil }) {
            return ("{type: boolean}", "given " + distinct.compactMap(\.boolValue).map(String.init).sorted().joined(separator: ", "))
        }
        let numbers = distinct.compactMap(\.doubleValue)
        if numbers.count == distinct.count, let low = numbers.min(), let high = numbers.max() {
            return range(distinct, low: low, high: high, parameter: facts.parameter, margin: margin)
        }
        let strings = distinct.compactMap(\.stringValue)
        if strings.count == distinct.count {
            let given = strings.sorted().map(YAMLText.scalar).joined(separator: ", ")
            if let fixed = facts.fixedSet {
                let all = Set(fixed).union(strings).sorted()
                return ("{enum: \(YAMLText.flowSequence(all))}", "given \(given); the values \(facts.fixedSetSource)")
            }
            if strings.count <= enumLimit { return ("{enum: \(YAMLText.flowSequence(strings.sorted()))}", "the values given") }
            return ("{type: string}", "\(strings.count) different values given")
        }
        if distinct.allSatisfy({ $0.arrayValue != nil || $0.objectValue != nil }), distinct.count <= enumLimit {
            return ("{enum: [" + distinct.map(YAMLText.json).joined(separator: ", ") + "]}", "the values given")
        }
        if distinct.allSatisfy({ $0.arrayValue != nil }) { return ("{type: array}", "lists given") }
        if distinct.allSatisfy({ $0.objectValue != nil }) { return ("{type: object}", "objects given") }
        return ("{}", "values of several types given")
    }

    /// A range from the given numbers' least divided by the margin (or the robot's least) to their
    /// most times the margin (at most the robot's most), never narrower than what is given.
    private static func range(_ given: [JSONValue], low: Double, high: Double, parameter: RobotCatalog.Parameter?, margin: SuggestionMargin) -> (String, String) {
        let integral = given.allSatisfy { $0.intValue != nil }
        var least = parameter?.minimum ?? (low >= 0 ? low / margin.factor : low * margin.factor)
        var most = high >= 0 ? high * margin.factor : high / margin.factor
        if let robotMost = parameter?.maximum { most = min(most, robotMost) }
        least = min(least, low)
        most = max(most, high)
        if integral {
            least = least.rounded(.up)
            most = most.rounded(.down)
        }
        let shown = given.sorted { ($0.doubleValue ?? 0) < ($1.doubleValue ?? 0) }.map { $0.serialized() }.joined(separator: ", ")
        let bounds = [parameter?.minimum == least ? "from the robot's least" : nil, parameter?.maximum == most ? "to the robot's most" : nil].compactMap { $0 }
        let note = "given \(shown); \(margin) room" + (bounds.isEmpty ? "" : ", " + bounds.joined(separator: " "))
        return ("{type: \(integral ? "integer" : "number"), min: \(format(least)), max: \(format(most))}", note)
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
