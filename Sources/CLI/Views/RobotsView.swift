import Spec

/// How `robots` shows the catalog: text for people, or JSON (`--json`). Chosen once from the
/// arguments; the texts themselves are `RobotsCommand`'s renderings.
protocol RobotsView: Sendable {
    /// Every robot.
    func list(_ catalog: RobotCatalog, context: CommandContext)
    /// One robot, with its parameters.
    func explain(_ robot: RobotCatalog.Robot, context: CommandContext)
}

extension RobotsView {
    /// No robot has that name; `hint` names the nearest.
    func unknown(_ name: String, hint: String, context: CommandContext) {
        context.output.failure("there is no robot '\(name)'", hint: hint)
    }
}

/// The catalog for people.
struct HumanRobotsView: RobotsView {
    func list(_ catalog: RobotCatalog, context: CommandContext) {
        context.output.out(RobotsCommand.list(catalog))
    }

    func explain(_ robot: RobotCatalog.Robot, context: CommandContext) {
        context.output.out(RobotsCommand.explain(robot))
    }
}

/// The catalog as a JSON array of robots.
struct JSONRobotsView: RobotsView {
    func list(_ catalog: RobotCatalog, context: CommandContext) {
        context.output.out(RobotsCommand.json(catalog.robots.values.sorted { $0.name < $1.name }))
    }

    func explain(_ robot: RobotCatalog.Robot, context: CommandContext) {
        context.output.out(RobotsCommand.json([robot]))
    }
}
