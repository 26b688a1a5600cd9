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

extension ImageResizeRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        [try resize(file, context: context)]
    }

    func finish() { watermark?.remove() }

    var decodesImages: Bool { true }
}

extension ImageOptimizeRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { [try optimize(file, context: context)] }
}

extension FileHashRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { [try hash(file)] }
}

extension FileDecompressRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { try decompress(file, context: context) }
}

extension DocumentThumbsRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { try thumbnails(of: file, context: context) }

    var decodesImages: Bool { true }
}

extension VideoEncodeRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { [try encode(file, context: context)] }
}

extension VideoThumbsRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { try thumbnails(of: file, context: context) }

    var decodesImages: Bool { true }
}

extension AudioEncodeRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { [try encode(file, context: context)] }
}

extension AudioWaveformRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { [try waveform(of: file, context: context)] }
}

extension MetaWriteRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { try write(file, context: context) }
}

extension ExportRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        [try export(file, context: context)]
    }
}

/// The robots that run on the local engine.
enum Robots {
    static let available = RobotCatalog.local

    /// Runs a step's robot over its input files, several files at once.
    static func run(_ context: RobotContext, on inputs: [AssemblyFile]) throws(RobotError) -> [AssemblyFile] {
        let options = context.options
        // A parameter this engine does not implement is refused, never silently ignored.
        if let unknown = RobotCatalog.unimplementedLocally(robot: context.step.robot, keys: options.keys.sorted()).first {
            throw RobotError(
                code: .invalidStepParameter,
                message: "this engine's \(context.step.robot) does not implement '\(TerminalText.printable(String(unknown.prefix(60))))'")
        }
        let ignored = try ignoredPhases(options)
        let robot: any FileRobot
        switch context.step.robot {
        case "/upload/handle": return inputs
        case "/http/import": return try HTTPImportRobot(options: options).importFiles(context: context)
        case "/file/filter": return try FileFilterRobot(options: options).filter(inputs)
        case "/file/compress": return try FileCompressRobot(options: options).compress(inputs, context: context)
        case "/image/resize": robot = try ImageResizeRobot(options: options)
        case "/image/optimize": robot = try ImageOptimizeRobot(options: options)
        case "/file/hash": robot = try FileHashRobot(options: options)
        case "/file/decompress": robot = FileDecompressRobot(options: options)
        case "/document/thumbs": robot = try DocumentThumbsRobot(options: options)
        case "/video/encode": robot = try VideoEncodeRobot(options: options)
        case "/video/thumbs": robot = try VideoThumbsRobot(options: options)
        case "/audio/encode": robot = try AudioEncodeRobot(options: options)
        case "/audio/waveform": robot = try AudioWaveformRobot(options: options)
        case "/meta/write": robot = try MetaWriteRobot(options: options)
        case let name where RobotCatalog.localExports.contains(name): robot = try ExportRobot(robot: name, options: options)
        default: throw RobotError(code: .invalidSteps, message: "\(context.step.robot) does not run locally")
        }
        defer { robot.finish() }
        let work: @Sendable (AssemblyFile) throws(RobotError) -> [AssemblyFile] = { file throws(RobotError) in
            guard robot.decodesImages else { return try robot.process(file, context: context) }
            let (made, warnings) = try VipsWarnings.watching(file.path, name: file.name) { () throws(RobotError) in try robot.process(file, context: context) }
            for warning in warnings { context.warn(warning, file) }
            return made
        }
        guard ignored.contains("execute") else { return try parallel(inputs, work).flatMap { $0 } }
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

    /// The phases a step's `ignore_errors` names (see `RobotCatalog.ignoredPhases`); anything else is refused.
    static func ignoredPhases(_ options: [String: JSONValue]) throws(RobotError) -> Set<String> {
        guard let phases = RobotCatalog.ignoredPhases(options["ignore_errors"]) else {
            throw RobotError(code: .invalidStepParameter, message: "'ignore_errors' is true, false or a list of the phases meta, execute and import")
        }
        return phases
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
