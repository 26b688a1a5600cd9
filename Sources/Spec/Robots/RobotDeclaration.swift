import Basics

/// One robot the local engine runs, declared once: its name, its parameters (decoded once, into
/// `Parameters`), the files it takes and what enters its digest. The engine adds how it runs
/// (`LocalRobot`); the catalog, dispatch, digests and docs tables derive from `RobotRegistry`.
public protocol RobotDeclaration: Sendable {
    /// What a step of the robot may set, decoded once from its options.
    associatedtype Parameters: RobotParameters
    /// Its names: one (`/image/resize`), or a family one declaration runs (the emulated `/…/store`).
    static var names: [String] { get }
    /// The files it processes.
    static var inputs: RobotInputs { get }
    /// How its results are identified, so a plan knows what it has made before.
    static var digest: RobotDigest { get }
}

/// A robot's decoded options: a `Decodable` type whose keys are its `Option` cases.
public protocol RobotParameters: Decodable, Sendable {
    /// Every option the local engine implements for the robot (its coding keys).
    associatedtype Option: RobotOption
}

/// One option of a robot: its key, and the values the local engine runs when it runs only some.
public protocol RobotOption: CodingKey, CaseIterable, Hashable, Sendable {
    /// The values the local engine runs (nil: it takes any value of the option's type).
    var localValues: [String]? { get }
}

extension RobotOption {
    /// Options take any value of their type unless they say otherwise.
    public var localValues: [String]? { nil }
}

/// The kinds of file a robot processes (`ContentInspection.kind`).
public enum FileKind: String, Sendable, CaseIterable {
    case image, video, audio, document

    /// How messages name files of the kind ("images or PDFs").
    var plural: String {
        switch self {
        case .image: "images"
        case .video: "videos"
        case .audio: "audio"
        case .document: "PDFs"
        }
    }
}

/// The files a robot takes.
public enum RobotInputs: Sendable, Equatable {
    /// Any file (files, archives, imports and exports).
    case anyFile
    /// Only files of these kinds; others fail the step.
    case kinds(Set<FileKind>)
}

/// What identifies a robot's results (see `StepDigests`).
public enum RobotDigest: Sendable, Equatable {
    /// Each result comes from exactly one source file: cached step by step, by the step's digest.
    case perSourceFile
    /// One result of all its inputs (an archive): no one source's, cached with its whole Assembly.
    case bundle
    /// Anything else (imports, archives unpacked): cached as a whole Assembly.
    case wholeAssembly
}

extension RobotDeclaration {
    /// The keys of every option the local engine implements for the robot.
    public static var optionNames: [String] { Parameters.Option.allCases.map(\.stringValue) }

    /// Decodes the options of a step of `robot` (one of `names`) once; keys it does not take are not read.
    public static func parameters(_ options: [String: JSONValue], of robot: String) throws(RobotOptionError) -> Parameters {
        try StepOptionsDecoder.decode(Parameters.self, from: options, robot: robot)
    }
}

/// The parameters of a robot that takes none.
public struct NoParameters: RobotParameters {
    /// It has no options.
    public enum Option: RobotOption {
        public init?(stringValue: String) { nil }
        public init?(intValue: Int) { nil }
        public var stringValue: String { switch self {} }
        public var intValue: Int? { nil }
        public static var allCases: [Option] { [] }
    }

    public init(from decoder: any Decoder) throws {}
}

extension RobotDeclaration {
    /// The values the local engine runs, by option, for the options that take only some.
    public static var localValues: [String: [String]] {
        Dictionary(uniqueKeysWithValues: Parameters.Option.allCases.compactMap { option in option.localValues.map { (option.stringValue, $0) } })
    }
}
