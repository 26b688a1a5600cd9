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

    var options: [String: JSONValue] { step.options }
}

/// A step that failed, with the error code the status reports.
struct RobotError: Error, Sendable {
    var code: String
    var message: String

    /// The step stopped because its Assembly was canceled (which is no failure of the step).
    static let canceled = RobotError(code: "ASSEMBLY_CANCELED", message: "the Assembly was canceled")
}

/// The robots that run on the local engine.
enum Robots {
    static let available = RobotCatalog.local

    /// Runs a step's robot over its input files, several files at once.
    static func run(_ context: RobotContext, on inputs: [AssemblyFile]) throws(RobotError) -> [AssemblyFile] {
        switch context.step.robot {
        case "/upload/handle":
            return inputs
        case "/file/filter":
            return try FileFilterRobot(options: context.options).filter(inputs)
        case "/image/resize":
            let robot = try ImageResizeRobot(options: context.options)
            return try parallel(inputs) { (file: AssemblyFile) throws(RobotError) -> AssemblyFile in try robot.resize(file, into: context.folder, limits: context.limits) }
        case "/file/hash":
            let robot = try FileHashRobot(options: context.options)
            return try parallel(inputs) { (file: AssemblyFile) throws(RobotError) -> AssemblyFile in try robot.hash(file) }
        case "/video/encode":
            let robot = try VideoEncodeRobot(options: context.options)
            return try parallel(inputs) { (file: AssemblyFile) throws(RobotError) -> AssemblyFile in try robot.encode(file, context: context) }
        case "/video/thumbs":
            let robot = try VideoThumbsRobot(options: context.options)
            return try parallel(inputs) { (file: AssemblyFile) throws(RobotError) -> [AssemblyFile] in try robot.thumbnails(of: file, context: context) }.flatMap { $0 }
        case let robot where RobotCatalog.localExports.contains(robot):
            let exporter = try ExportRobot(robot: robot, options: context.options)
            return try parallel(inputs) { (file: AssemblyFile) throws(RobotError) -> AssemblyFile in
                try exporter.export(file, into: context.exports, context: context, assembly: context.assembly)
            }
        case "/audio/waveform":
            let robot = try AudioWaveformRobot(options: context.options)
            return try parallel(inputs) { (file: AssemblyFile) throws(RobotError) -> AssemblyFile in try robot.waveform(of: file, context: context) }
        case "/image/optimize":
            let robot = try ImageOptimizeRobot(options: context.options)
            return try parallel(inputs) { (file: AssemblyFile) throws(RobotError) -> AssemblyFile in try robot.optimize(file, context: context) }
        case "/document/thumbs":
            let robot = try DocumentThumbsRobot(options: context.options)
            return try parallel(inputs) { (file: AssemblyFile) throws(RobotError) -> [AssemblyFile] in try robot.thumbnails(of: file, context: context) }.flatMap { $0 }
        case "/file/compress":
            return try FileCompressRobot(options: context.options).compress(inputs, context: context)
        case "/file/decompress":
            let robot = FileDecompressRobot(options: context.options)
            return try parallel(inputs) { (file: AssemblyFile) throws(RobotError) -> [AssemblyFile] in try robot.decompress(file, context: context) }.flatMap { $0 }
        case "/audio/encode":
            let robot = try AudioEncodeRobot(options: context.options)
            return try parallel(inputs) { (file: AssemblyFile) throws(RobotError) -> AssemblyFile in try robot.encode(file, context: context) }
        default:
            throw RobotError(code: "ASSEMBLY_INVALID_STEPS", message: "\(context.step.robot) does not run locally")
        }
    }

    /// `work` on every input, on all cores, keeping the input order; the first error wins.
    static func parallel<Output: Sendable>(
        _ inputs: [AssemblyFile], _ work: @Sendable (AssemblyFile) throws(RobotError) -> Output
    ) throws(RobotError) -> [Output] {
        let outputs = Mutex<[Int: Result<Output, RobotError>]>([:])
        DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
            let result = Result { () throws(RobotError) -> Output in try work(inputs[index]) }
            outputs.withLock { $0[index] = result }
        }
        let collected = outputs.withLock { $0 }
        var results: [Output] = []
        for index in inputs.indices {
            guard let result = collected[index] else { continue }
            results.append(try result.get())
        }
        return results
    }
}
