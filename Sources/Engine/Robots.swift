import Wire
import Foundation
import Basics
import Spec
import Synchronization

/// What a robot gets for one step: its options, where to write, the Assembly's fields.
struct RobotContext: Sendable {
    var step: StepGraph.Step
    var folder: String
    var fields: [String: JSONValue]
    /// The Assembly's id.
    var assembly: String
    /// Where export robots copy files to.
    var exports: String
    /// What inputs robots take.
    var limits: RobotLimits
    /// The named credentials storage steps may use.
    var storage: StorageCredentials = .none
    /// The step's inline secrets (`secret`, `session_token`), kept in memory only.
    var inlineSecrets: [String: String] = [:]
    /// Whether the Assembly was canceled (or failed) meanwhile: long work stops when it says yes.
    var isCanceled: @Sendable () -> Bool = { false }
    /// Records an error the step's `ignore_errors` let it skip (with the file it left out, when
    /// one was), for the status' `ignored_errors`.
    var ignore: @Sendable (RobotError, AssemblyFile?) -> Void = { _, _ in }
    /// Records what a tool warned of while it worked on a file (it made a result anyway), for
    /// the status' `warnings`.
    var warn: @Sendable (String, AssemblyFile) -> Void = { _, _ in }

    var options: [String: JSONValue] { step.options }
}

/// A step that failed, with the error code the status reports.
struct RobotError: Error, Sendable {
    var code: APIErrorCode
    var message: String

    /// The step stopped because its Assembly was canceled (which is no failure of the step).
    static let canceled = RobotError(code: .assemblyCanceled, message: "the Assembly was canceled")
}

/// A robot that turns each input file into results by itself, so a step's files can be spread
/// over the cores.
protocol FileRobot: Sendable {
    /// What `file` becomes: one file for most robots, several for thumbnails and archives.
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile]
    /// Releases what the step needed once all its files are done.
    func finish()
    /// Whether it decodes its files with libvips, whose warnings are then given to each file.
    var decodesImages: Bool { get }
}

extension FileRobot {
    func finish() {}
    var decodesImages: Bool { false }
}

/// The robots that run on the local engine.
enum Robots {
    static let available = RobotCatalog.local

    /// Runs a step's robot over its input files, several files at once.
    static func run(_ context: RobotContext, on inputs: [AssemblyFile]) throws(RobotError) -> [AssemblyFile] {
        let options = context.options, name = context.step.robot
        guard let local = RobotRegistry.declaration(of: name) as? any LocalRobot.Type else {
            throw RobotError(code: .invalidSteps, message: "\(name) does not run locally")
        }
        // A parameter this engine does not implement is refused, never silently ignored.
        if let unknown = RobotCatalog.unimplementedLocally(robot: name, keys: options.keys.sorted()).first {
            throw RobotError(
                code: .invalidStepParameter,
                message: "this engine's \(name) does not implement '\(TerminalText.printable(String(unknown.prefix(60))))'")
        }
        let common: CommonParameters
        do { common = try CommonParameters.of(options, robot: name) } catch { throw RobotError(error) }
        let robot: any FileRobot
        switch try local.work(options: options, robot: name) {
        case .passThrough: return inputs
        case .allFiles(let work): return try work(inputs, context)
        case .eachFile(let each): robot = each
        }
        defer { robot.finish() }
        let work: @Sendable (AssemblyFile) throws(RobotError) -> [AssemblyFile] = { file throws(RobotError) in
            guard robot.decodesImages else { return try robot.process(file, context: context) }
            let (made, warnings) = try VipsWarnings.watching(file.path, name: file.name) { () throws(RobotError) in try robot.process(file, context: context) }
            for warning in warnings { context.warn(warning, file) }
            return made
        }
        guard common.ignoredPhases.contains("execute") else { return try parallel(inputs, work).flatMap { $0 } }
        // `ignore_errors: [execute]`: a file the robot fails on is left out and named; the others go on.
        var kept: [AssemblyFile] = []
        for (file, outcome) in zip(inputs, outcomes(inputs, work)) {
            switch outcome {
            case .success(let made): kept += made
            case .failure(let error):
                if error.code == RobotError.canceled.code || context.isCanceled() { throw error }
                context.ignore(error, file)
            }
        }
        return kept
    }

    /// `work` on every input, on all cores, keeping the input order; the first error wins.
    static func parallel<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], _ work: @escaping @Sendable (Input) throws(RobotError) -> Output
    ) throws(RobotError) -> [Output] {
        try outcomes(inputs, work).map { outcome throws(RobotError) in try outcome.get() }
    }

    /// Every input's outcome, worked on all cores, in the input order.
    static func outcomes<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], _ work: @escaping @Sendable (Input) throws(RobotError) -> Output
    ) -> [Result<Output, RobotError>] {
        ParallelWork.map(count: inputs.count, placeholder: .failure(RobotError(code: .internalCommandError, message: "not run"))) {
            { index in Result { () throws(RobotError) -> Output in try work(inputs[index]) } }
        }
    }
}
