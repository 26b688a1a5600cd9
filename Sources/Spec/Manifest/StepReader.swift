import Basics
import YAML

/// Decodes `steps:` in the exact shape of Transloadit Assembly Instructions and checks that
/// every `use:` names `:original`, another step of the same owner, or a step it inherits.
struct StepReader {
    let decoder: NodeDecoder

    /// The steps of `owner` (such as "job 'thumbs'" or "Template 'site-thumbs'"). A `use:` may also
    /// name `inherited` steps (those of the job's Template, which the service merges in), or any
    /// step at all when `othersUnknown` (a Template this manifest does not manage).
    func read(_ node: Node, owner: String, index: inout LocationIndex, inherited: [String] = [], othersUnknown: Bool = false) -> [Step]? {
        guard let entries = decoder.entries(node, what: "'steps' of \(owner)") else { return nil }
        if entries.isEmpty {
            decoder.report(.error(
                "manifest.no-steps", "'steps' of \(owner) is empty", at: node.location,
                hint: "add a step such as 'thumb: {robot: /image/resize, use: :original, width: 200}'"))
        }
        index.record(["steps"], key: nil, value: node.location)
        var steps: [Step] = []
        for pair in entries {
            if let step = readStep(pair, index: &index) { steps.append(step) }
        }
        let names = entries.map(\.keyText)
        var uses: [String: [(name: String, node: Node)]] = [:]
        for pair in entries {
            uses[pair.keyText] = checkReferences(in: pair, stepNames: names, inherited: inherited, othersUnknown: othersUnknown)
        }
        reportCycle(in: uses, order: names)
        return steps
    }

    private func readStep(_ pair: Pair, index: inout LocationIndex) -> Step? {
        let name = pair.keyText
        let path = ["steps", name]
        // ':original' is the name Transloadit gives the step of /upload/handle; other ':' names are reserved.
        let isOriginal = name == ":original" && pair.value.pairs?.first(where: { $0.keyText == "robot" })?.value.scalar?.text == "/upload/handle"
        guard !name.isEmpty, !name.hasPrefix(":") || isOriginal else {
            decoder.report(.error(
                "manifest.bad-name", "step name '\(name)' is not allowed", at: pair.key.location,
                hint: name == ":original" ? "':original' must be the /upload/handle step: ':original': {robot: /upload/handle}"
                    : "names starting with ':' are reserved for inputs such as ':original'"))
            return nil
        }
        if let control = Self.controlCharacter(in: name) {
            // A name is shown in messages, plans and generated YAML: a line break in it could forge lines there.
            decoder.report(.error(
                "manifest.bad-name", "step name \(YAMLText.quoted(name)) holds the control character U+\(Self.hex(control))", at: pair.key.location,
                hint: "a step name is one line of visible text: remove line breaks, tabs and other control characters"))
            return nil
        }
        guard let pairs = pair.value.pairs else {
            decoder.typeMismatch(pair.value, expected: "a mapping with 'robot' and its options", what: "step '\(name)'")
            return nil
        }
        guard let robotPair = pairs.first(where: { $0.keyText == "robot" }) else {
            decoder.report(.error(
                "manifest.missing-robot", "step '\(name)' has no 'robot'", at: pair.key.location,
                hint: "add 'robot:', such as 'robot: /image/resize'"))
            return nil
        }
        guard let robot = decoder.nonEmptyString(robotPair.value, what: "'robot' of step '\(name)'") else { return nil }
        guard robot.value.hasPrefix("/") else {
            decoder.report(.error(
                "manifest.bad-robot", "robot '\(robot.value)' must start with '/'", at: robot.location,
                hint: "robots are named like paths, such as '/image/resize' or '/video/encode'"))
            return nil
        }
        guard let instructions = decoder.json(pair.value, path: path, index: &index, key: pair.key.location) else { return nil }
        checkAgainstCatalog(step: name, robot: robot, pairs: pairs, instructions: instructions)
        return Step(name: Located(name, at: pair.key.location), robot: robot.value, instructions: instructions)
    }

    /// The robot and every parameter against the robot catalog: what the service would refuse
    /// after the upload is an error here, at its line. Values holding Assembly variables
    /// (`${file.size}`) are left for the service to judge.
    private func checkAgainstCatalog(step: String, robot: Located<String>, pairs: [Pair], instructions: JSONValue) {
        let catalog = RobotCatalog.bundled
        guard let entry = catalog.robots[robot.value] else {
            let hint = Suggestions.closest(to: robot.value, in: catalog.robots.keys).map { "did you mean '\($0)'?" }
                ?? "'pipeline robots' lists every robot"
            decoder.report(.error("manifest.unknown-robot", "step '\(step)' names an unknown robot '\(robot.value)'", at: robot.location, hint: hint))
            return
        }
        for pair in pairs where pair.keyText != "robot" {
            let name = pair.keyText
            // A secret written in a manifest would be in git, plans and results: it stays out.
            if StorageSteps.secretParameters.contains(name), entry.parameters[name] != nil {
                decoder.report(.error(
                    "manifest.inline-secret", "step '\(step)' writes its '\(name)' into the manifest, where plans, results and the repository would keep it",
                    at: pair.key.location,
                    hint: "name credentials instead (credentials: NAME): Template Credentials on the service; on the local engine the variables "
                        + "\(StorageSteps.variablePrefix)NAME_KEY and _SECRET, or 'pipeline serve --credentials FILE'").withoutSource())
                continue
            }
            guard let parameter = entry.parameters[name] ?? RobotCatalog.legacy[name] else {
                let hint = Suggestions.closest(to: name, in: entry.parameters.keys).map { "did you mean '\($0)'?" }
                    ?? "'pipeline robots \(robot.value)' lists its parameters"
                decoder.report(.error(
                    "manifest.unknown-parameter", "\(robot.value) has no parameter '\(name)' (step '\(step)')", at: pair.key.location, hint: hint))
                continue
            }
            guard let value = instructions[name], !value.serialized().contains("${") else { continue }
            if let problem = parameter.problem(with: value) {
                // A close allowed value if there is one; else where the parameter is explained.
                let suggestion = value.stringValue.flatMap { text in
                    Suggestions.closest(to: text, in: (parameter.allowed ?? []).compactMap(\.stringValue)).map { "did you mean '\($0)'?" }
                }
                let hint = suggestion ?? "'pipeline robots \(robot.value)' explains '\(name)' and its allowed values"
                decoder.report(.error("manifest.parameter-value", "'\(name)' of step '\(step)' \(problem)", at: pair.value.location, hint: hint))
            }
        }
    }

    /// The first C0 or C1 control, DEL, or line or paragraph separator in `name`.
    static func controlCharacter(in name: String) -> Unicode.Scalar? {
        name.unicodeScalars.first { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" }
    }

    /// `0A` as `000A`: a code point as Unicode writes it.
    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Reports `use` entries that name no step; returns the steps it names, with their nodes.
    private func checkReferences(in pair: Pair, stepNames: [String], inherited: [String], othersUnknown: Bool) -> [(name: String, node: Node)] {
        guard let use = pair.value.pairs?.first(where: { $0.keyText == "use" })?.value else { return [] }
        let step = pair.keyText
        var named: [(name: String, node: Node)] = []
        for reference in references(in: use) {
            guard let name = decoder.toleratingUnsetVariables({ decoder.string(reference, what: "a step name in 'use'") })?.value else {
                continue
            }
            if name != step, stepNames.contains(name) { named.append((name, reference)) }
            if name == step {
                decoder.report(.error(
                    "manifest.unknown-step", "step '\(step)' uses itself", at: reference.location,
                    hint: "use ':original' or an earlier step"))
            } else if name != ":original", !stepNames.contains(name), !inherited.contains(name), !othersUnknown {
                decoder.report(.error(
                    "manifest.unknown-step", "step '\(step)' uses '\(name)', which is not a step of this job" + (inherited.isEmpty ? "" : " or its Template"),
                    at: reference.location, hint: Suggestions.hint(for: name, in: [":original"] + stepNames + inherited, kind: "names")))
            }
        }
        return named
    }

    /// A step graph with a cycle cannot run: reported once, at the `use` that closes it.
    private func reportCycle(in uses: [String: [(name: String, node: Node)]], order: [String]) {
        var state: [String: Int] = [:]  // 1: on the path, 2: done
        var path: [String] = []
        func visit(_ step: String) -> Bool {
            state[step] = 1
            path.append(step)
            for edge in uses[step] ?? [] {
                if state[edge.name] == 1 {
                    let loop = path.drop { $0 != edge.name } + [edge.name]
                    decoder.report(.error(
                        "manifest.step-cycle", "the steps use each other in a cycle: " + loop.joined(separator: " -> "),
                        at: edge.node.location, hint: "a step can only use ':original' or steps that do not use it back"))
                    return true
                }
                if state[edge.name] == nil, visit(edge.name) { return true }
            }
            path.removeLast()
            state[step] = 2
            return false
        }
        for step in order where state[step] == nil {
            if visit(step) { return }
        }
    }

    /// The nodes naming steps in the forms `use` takes: a name, a list of names or of
    /// `{name: ...}`, or `{steps: [...]}`.
    private func references(in use: Node) -> [Node] {
        switch use.kind {
        case .scalar:
            return [use]
        case .sequence(let elements):
            return elements.flatMap { element -> [Node] in
                if element.scalar != nil { return [element] }
                if let name = element.pairs?.first(where: { $0.keyText == "name" })?.value { return [name] }
                decoder.typeMismatch(element, expected: "a step name or a mapping with 'name'", what: "each entry of 'use'")
                return []
            }
        case .mapping(let pairs):
            guard let steps = pairs.first(where: { $0.keyText == "steps" })?.value else {
                decoder.typeMismatch(use, expected: "a step name, a list of them, or a mapping with 'steps'", what: "'use'")
                return []
            }
            return references(in: steps)
        }
    }
}
