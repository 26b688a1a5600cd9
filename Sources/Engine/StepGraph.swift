import Basics
import Spec

/// The steps of an Assembly as a graph: which steps each one uses, in an order that runs every
/// step after the steps it uses.
struct StepGraph: Sendable {
    /// One step: its name, robot, options and the names it uses (`:original` for the uploads).
    struct Step: Sendable {
        var name: String
        var robot: String
        var options: [String: JSONValue]
        var uses: [String]
    }

    /// The steps in an order where each comes after what it uses.
    let ordered: [Step]

    /// The steps in waves: each wave uses only the uploads and earlier waves, so the steps of one
    /// wave can run at the same time.
    var waves: [[Step]] {
        var wave: [String: Int] = [:]
        for step in ordered {
            wave[step.name] = (step.uses.compactMap { wave[$0] }.max() ?? -1) + 1
        }
        return Dictionary(grouping: ordered) { wave[$0.name] ?? 0 }.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Builds the graph; `nil` when `problem(in:)` would report something.
    init?(_ steps: JSONValue) {
        guard Self.problem(in: steps) == nil, let object = steps.objectValue else { return nil }
        let all = object.map { name, value in
            Step(name: name, robot: value["robot"]?.stringValue ?? "", options: value.objectValue ?? [:], uses: Self.uses(of: value))
        }
        guard let order = Self.order(all) else { return nil }
        ordered = order
    }

    /// Why `steps` cannot run locally, or `nil`.
    static func problem(in steps: JSONValue) -> String? {
        guard let object = steps.objectValue else { return "'steps' must be an object" }
        for (name, step) in object.sorted(by: { $0.key < $1.key }) {
            guard let robot = step["robot"]?.stringValue else { return "step '\(name)' has no robot" }
            guard Robots.available.contains(robot) else {
                return "robot \(robot) (step '\(name)') does not run on the local engine; robots that do: "
                    + RobotCatalog.localProcessing.sorted().joined(separator: ", ") + ", and every /.../store robot (emulated)"
            }
            for used in uses(of: step) where used != ":original" && object[used] == nil {
                return "step '\(name)' uses '\(used)', which is not a step"
            }
        }
        let all = object.map { Step(name: $0.key, robot: "", options: [:], uses: uses(of: $0.value)) }
        return order(all) == nil ? "the steps use each other in a cycle" : nil
    }

    /// Whether a step's files appear in `results`: `result: true`, or by default the last
    /// steps (those no other step uses), except steps that only hand uploads through.
    func isResult(_ step: Step) -> Bool {
        if let flag = step.options["result"]?.boolValue { return flag }
        let used = Set(ordered.flatMap(\.uses))
        return !used.contains(step.name) && step.robot != "/upload/handle"
    }

    /// The steps a step uses (see `StepUses`).
    static func uses(of step: JSONValue) -> [String] { StepUses.of(step) }

    private static func order(_ steps: [Step]) -> [Step]? {
        var done: Set<String> = [":original"]
        var remaining = steps.sorted { $0.name < $1.name }
        var ordered: [Step] = []
        while !remaining.isEmpty {
            guard let index = remaining.firstIndex(where: { Set($0.uses).isSubset(of: done) }) else { return nil }
            let step = remaining.remove(at: index)
            ordered.append(step)
            done.insert(step.name)
        }
        return ordered
    }
}
