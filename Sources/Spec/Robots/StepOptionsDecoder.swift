import Basics
import Synchronization

/// Decodes a robot's `Parameters` from a step's options as they are (JSON values, no text in
/// between, through `JSONValueDecoder`). While it decodes, `OptionReader` knows the robot's
/// name, for messages, and notes each option it is asked for, so a test can tell that every
/// declared option is read.
enum StepOptionsDecoder {
    /// The keys a decoding asked for, present or not.
    final class ReadKeys: Sendable {
        let keys = Mutex<Set<String>>([])
    }

    /// What the options being decoded belong to.
    struct Context: Sendable {
        var robot: String
        var reads: ReadKeys?
    }

    /// The context of the decoding under way on this thread, if any.
    @TaskLocal static var current: Context?

    /// `type` decoded from `options`; any failure is an error naming the option.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from options: [String: JSONValue], robot: String, reads: ReadKeys? = nil
    ) throws(RobotOptionError) -> Value {
        do {
            return try $current.withValue(Context(robot: robot, reads: reads)) {
                try JSONValueDecoder.decode(Value.self, from: .object(options))
            }
        } catch let error as RobotOptionError {
            throw error
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw RobotOptionError(context.codingPath.first?.stringValue, "'\(shown(context.codingPath))' cannot be read: \(context.debugDescription)")
        } catch let DecodingError.keyNotFound(key, context) {
            throw RobotOptionError(context.codingPath.first?.stringValue ?? key.stringValue, "'\(shown(context.codingPath + [key]))' must be given")
        } catch {
            throw RobotOptionError(nil, "the options cannot be read: \(error)")
        }
    }

    /// A coding path as the step writes it: `headers.0`.
    private static func shown(_ path: [any CodingKey]) -> String {
        path.map { key in key.intValue.map(String.init) ?? key.stringValue }.joined(separator: ".")
    }
}
