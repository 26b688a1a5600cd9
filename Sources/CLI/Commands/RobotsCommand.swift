import Basics
import Spec

/// `pipeline robots [NAME]`: the robot catalog, listed by category or explained one robot at a time.
struct RobotsCommand: Command {
    static let spec = CommandSpec(
        name: "robots",
        summary: "List the service's robots, or explain one: its parameters, their types, allowed values and defaults.",
        discussion: """
        The catalog comes from the official SDK's parameter schemas (schemas/robots.json); validate, plan and \
        run check every step against it. Robots marked 'local' also run on the local engine.
        """,
        arguments: [.init(name: "NAME", help: "A robot, such as /image/resize.", optional: true, choices: RobotCatalog.bundled.robots.keys.sorted())],
        options: [.init(name: "json", help: "Print the catalog entry as JSON.")],
        examples: ["pipeline robots", "pipeline robots /image/resize", "pipeline robots /video/encode --json"])

    let arguments: RobotsArguments

    init(_ arguments: RobotsArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async -> Int32 {
        let catalog = RobotCatalog.bundled
        let view: any RobotsView = arguments.json ? JSONRobotsView() : HumanRobotsView()
        guard let name = arguments.name else {
            view.list(catalog, context: context)
            return ExitCode.success
        }
        let wanted = name.hasPrefix("/") ? name : "/" + name
        guard let robot = catalog.robots[wanted] else {
            // "resize" finds /image/resize by its last part; "/image/resise" by its whole name.
            let byLastPart = catalog.robots.keys.filter { $0.split(separator: "/").last.map(String.init) == name }.sorted()
            let hint = (byLastPart.isEmpty ? Suggestions.closest(to: wanted, in: catalog.robots.keys).map { [$0] } : byLastPart)
                .map { "did you mean " + $0.map { "'\($0)'" }.joined(separator: " or ") + "?" } ?? "'pipeline robots' lists them all"
            view.unknown(name, hint: hint, context: context)
            return ExitCode.failure
        }
        view.explain(robot, context: context)
        return ExitCode.success
    }

    /// Every robot by category, for people.
    static func list(_ catalog: RobotCatalog) -> String {
        let byCategory = Dictionary(grouping: catalog.robots.values) { $0.name.split(separator: "/").first.map(String.init) ?? "" }
        let width = (catalog.robots.keys.map(\.count).max() ?? 0) + 2
        var text = ""
        for category in byCategory.keys.sorted() {
            text += category + "\n"
            for robot in (byCategory[category] ?? []).sorted(by: { $0.name < $1.name }) {
                let local = RobotCatalog.local.contains(robot.name) ? " (local)" : ""
                text += "  " + robot.name.padding(toLength: width, withPad: " ", startingAt: 0) + robot.summary + local + "\n"
            }
        }
        return text + "\(catalog.robots.count) robots, \(RobotCatalog.local.count) of them run on the local engine. 'pipeline robots NAME' explains one.\n"
    }

    /// One robot and its parameters, for people.
    static func explain(_ robot: RobotCatalog.Robot) -> String {
        var text = "\(robot.name): \(robot.summary)\n"
        text += "Local engine: " + (RobotCatalog.local.contains(robot.name) ? "runs it" : "does not run it") + "\n\nParameters:\n"
        let width = (robot.parameters.keys.map(\.count).max() ?? 0) + 2
        for (name, parameter) in robot.parameters.sorted(by: { $0.key < $1.key }) {
            var facts = (parameter.types + (parameter.nullable ? ["null"] : [])).joined(separator: " or ")
            if let allowed = parameter.allowed { facts += ": " + allowed.map(show).joined(separator: ", ") }
            switch (parameter.minimum, parameter.maximum) {
            case (let minimum?, let maximum?): facts += ", \(show(.double(minimum))) to \(show(.double(maximum)))"
            case (let minimum?, nil): facts += ", at least \(show(.double(minimum)))"
            case (nil, let maximum?): facts += ", at most \(show(.double(maximum)))"
            case (nil, nil): break
            }
            if let value = parameter.defaultValue, value != .null { facts += " (default \(show(value)))" }
            if let implemented = RobotCatalog.implementsLocally(robot: robot.name, parameter: name) {
                let values = RobotCatalog.localValues[robot.name]?[name].map { " (" + $0.joined(separator: ", ") + ")" } ?? ""
                facts += implemented ? "; local engine: yes" + values : "; local engine: no"
            }
            text += "  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + facts + "\n"
            if let description = parameter.description { text += "  " + String(repeating: " ", count: width) + description + "\n" }
        }
        return text
    }

    /// Robots as a JSON array.
    static func json(_ robots: [RobotCatalog.Robot]) -> String {
        JSONValue.array(robots.map { robot in
            .object([
                "robot": .string(robot.name), "summary": .string(robot.summary), "local": .bool(RobotCatalog.local.contains(robot.name)),
                "parameters": .object(Dictionary(uniqueKeysWithValues: robot.parameters.map { name, parameter in
                    var object: [String: JSONValue] = ["type": .array(parameter.types.map { .string($0) }), "nullable": .bool(parameter.nullable)]
                    if let allowed = parameter.allowed { object["enum"] = .array(allowed) }
                    if let minimum = parameter.minimum { object["minimum"] = .double(minimum) }
                    if let maximum = parameter.maximum { object["maximum"] = .double(maximum) }
                    if let value = parameter.defaultValue { object["default"] = value }
                    if let description = parameter.description { object["description"] = .string(description) }
                    if let implemented = RobotCatalog.implementsLocally(robot: robot.name, parameter: name) { object["local"] = .bool(implemented) }
                    if let values = RobotCatalog.localValues[robot.name]?[name] { object["local_values"] = .array(values.map { .string($0) }) }
                    return (name, .object(object))
                })),
            ])
        }).serialized(pretty: true) + "\n"
    }

    private static func show(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return value.serialized()
    }
}
