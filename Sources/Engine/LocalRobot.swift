import Basics
import Spec

/// How the local engine runs a declared robot (`RobotDeclaration`): its work for a step, from
/// the step's parameters, decoded once. The engine dispatches through `RobotRegistry`.
protocol LocalRobot: RobotDeclaration {
    /// What a step of `robot` (one of `names`) does with these parameters.
    static func work(_ parameters: Parameters, robot: String) throws(RobotError) -> RobotWork
}

/// What a step does with its input files.
enum RobotWork {
    /// Hands its inputs on as they are.
    case passThrough
    /// Turns each input file into results by itself, so the files are spread over the cores.
    case eachFile(any FileRobot)
    /// Works on all the inputs at once (a filter, an archive, an import).
    case allFiles(@Sendable (_ inputs: [AssemblyFile], _ context: RobotContext) throws(RobotError) -> [AssemblyFile])
}

extension LocalRobot {
    /// The work of a step of `robot` with `options`, decoded once into `Parameters`.
    static func work(options: [String: JSONValue], robot: String) throws(RobotError) -> RobotWork {
        let parameters: Parameters
        do { parameters = try Self.parameters(options, of: robot) } catch { throw RobotError(error) }
        return try work(parameters, robot: robot)
    }
}

extension RobotError {
    /// An option the local engine cannot run, as the status reports it.
    init(_ error: RobotOptionError) {
        self.init(code: .invalidStepParameter, message: error.message)
    }
}

extension UploadHandle: LocalRobot {
    static func work(_ parameters: NoParameters, robot: String) -> RobotWork { .passThrough }
}
