extension RobotCatalog {
    /// Step keys every robot takes: what the step is and where its files come from, not options.
    public static let structuralKeys: Set<String> = ["robot", "use", "result"]

    /// The parameters the local engine implements, per robot it runs (its declaration's
    /// options): anything else in a step for `endpoint: local` is refused at validate time (and
    /// by the engine), never silently ignored.
    public static let localParameters: [String: Set<String>] = RobotRegistry.byName.mapValues { Set($0.optionNames) }

    /// Keys the local engine implements for every robot: `ignore_errors` (a file a robot fails
    /// on is left out and named, as the service does).
    public static let everyLocalRobotTakes: Set<String> = Set(CommonParameters.Option.allCases.map(\.stringValue))

    /// Whether the local engine implements `parameter` of `robot`; nil when it does not run the robot.
    public static func implementsLocally(robot: String, parameter: String) -> Bool? {
        localParameters[robot].map { $0.contains(parameter) || structuralKeys.contains(parameter) || everyLocalRobotTakes.contains(parameter) }
    }

    /// The keys of a local step that the local engine does not implement, in order.
    public static func unimplementedLocally(robot: String, keys: [String]) -> [String] {
        keys.filter { implementsLocally(robot: robot, parameter: $0) == false }
    }
}
