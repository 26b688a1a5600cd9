import Basics

/// Every robot of the hosted service and its parameters, from `schemas/robots.json` (derived
/// from the official SDK's schemas; see scripts/robot-catalog). Checked steps get located errors
/// for unknown robots and parameters, wrong types and values out of range.
public struct RobotCatalog: Sendable {
    /// What a parameter accepts.
    public struct Parameter: Sendable, Equatable {
        /// JSON types: string, integer, number, boolean, array, object, any.
        public var types: [String]
        /// The only values allowed, when the schema lists them.
        public var allowed: [JSONValue]?
        /// The smallest and largest number allowed.
        public var minimum: Double?
        /// The largest number allowed.
        public var maximum: Double?
        /// The value used when the parameter is not given.
        public var defaultValue: JSONValue?
        /// Whether `null` is accepted.
        public var nullable: Bool
        /// Values the service knows, where it accepts others too.
        public var suggestions: [JSONValue]
        /// One line on what it does.
        public var description: String?
    }

    /// One robot.
    public struct Robot: Sendable {
        /// Its name, such as `/image/resize`.
        public var name: String
        /// One line on what it does.
        public var summary: String
        /// Every parameter it takes, the shared ones (`use`, `result`, ...) included.
        public var parameters: [String: Parameter]
    }

    /// The robots by name.
    public let robots: [String: Robot]

    /// Parameters the service's documentation still shows on any step though the SDK's schemas
    /// moved them (`bundle_steps`, now inside `use`): accepted, so documented steps validate.
    public static let legacy: [String: Parameter] = [
        "bundle_steps": Parameter(
            types: ["boolean"], allowed: nil, minimum: nil, maximum: nil, defaultValue: .bool(false), nullable: false, suggestions: [],
            description: "Give the used steps' files to the robot together (the form inside 'use' is preferred)."),
    ]

    /// The robots the local engine (`pipeline serve`, `endpoint: local`) runs.
    public static let local: Set<String> = Set(RobotRegistry.byName.keys)

    /// The robots the local engine runs as the service does.
    public static let localProcessing: Set<String> = local.subtracting(localExports)

    /// The export robots (`/s3/store` and every other `/…/store`): their results are stored, not temporary.
    public static let exports: Set<String> = Set(bundled.robots.keys.filter { $0.hasSuffix("/store") })

    /// The export robots the local engine emulates (`EmulatedStore`): it copies the files into
    /// its own `exports/` folder instead of sending them anywhere.
    public static let localExports: Set<String> = Set(RobotRegistry.byName.filter { ObjectIdentifier($0.value) == ObjectIdentifier(EmulatedStore.self) }.keys)

    /// The catalog the tool was built with.
    public static let bundled: RobotCatalog = {
        do {
            return try RobotCatalog(json: JSONParser.parse(Array(embeddedJSON.utf8)))
        } catch {
            // The suite decodes the embedded catalog, so this is a build that skipped its tests.
            return RobotCatalog(robots: [:])
        }
    }()

    init(robots: [String: Robot]) {
        self.robots = robots
    }

    /// Reads the catalog format of `schemas/robots.json`; throws on anything it does not know.
    public init(json: JSONValue) throws(CatalogError) {
        guard let top = json.objectValue, top["version"]?.intValue == 1 else { throw CatalogError("the catalog's version must be 1") }
        try Self.onlyKeys(top, ["version", "source", "shared", "robots"], in: "the catalog")
        var shared: [String: [String: Parameter]] = [:]
        for (block, parameters) in top["shared"]?.objectValue ?? [:] {
            shared[block] = try Self.parameters(parameters, in: "shared block '\(block)'")
        }
        var robots: [String: Robot] = [:]
        for (name, entry) in top["robots"]?.objectValue ?? [:] {
            guard let object = entry.objectValue else { throw CatalogError("robot '\(name)' is not an object") }
            try Self.onlyKeys(object, ["summary", "shared", "parameters"], in: "robot '\(name)'")
            var merged: [String: Parameter] = [:]
            for block in object["shared"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                guard let parameters = shared[block] else { throw CatalogError("robot '\(name)' names unknown shared block '\(block)'") }
                merged.merge(parameters) { _, new in new }
            }
            merged.merge(try Self.parameters(object["parameters"] ?? .object([:]), in: "robot '\(name)'")) { _, own in own }
            robots[name] = Robot(name: name, summary: object["summary"]?.stringValue ?? "", parameters: merged)
        }
        self.robots = robots
    }

    private static func parameters(_ json: JSONValue, in context: String) throws(CatalogError) -> [String: Parameter] {
        guard let object = json.objectValue else { throw CatalogError("the parameters of \(context) are not an object") }
        var result: [String: Parameter] = [:]
        for (name, entry) in object {
            guard let fields = entry.objectValue else { throw CatalogError("parameter '\(name)' of \(context) is not an object") }
            try onlyKeys(fields, ["type", "enum", "minimum", "maximum", "default", "nullable", "suggestions", "description"], in: "parameter '\(name)' of \(context)")
            let types = fields["type"]?.arrayValue?.compactMap(\.stringValue) ?? ["any"]
            for type in types where !["string", "integer", "number", "boolean", "array", "object", "any"].contains(type) {
                throw CatalogError("parameter '\(name)' of \(context) has an unknown type '\(type)'")
            }
            result[name] = Parameter(
                types: types, allowed: fields["enum"]?.arrayValue, minimum: fields["minimum"]?.doubleValue, maximum: fields["maximum"]?.doubleValue,
                defaultValue: fields["default"], nullable: fields["nullable"]?.boolValue ?? false,
                suggestions: fields["suggestions"]?.arrayValue ?? [], description: fields["description"]?.stringValue)
        }
        return result
    }

    private static func onlyKeys(_ object: [String: JSONValue], _ keys: Set<String>, in context: String) throws(CatalogError) {
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw CatalogError("\(context) has an unknown key '\(unknown)'")
        }
    }
}

/// A catalog file that is not in the catalog format.
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
