import Basics
import Foundation

/// `/image/optimize`: lossless re-encoding with the field's own tools, jpegtran for JPEG (Huffman
/// tables optimized, `progressive` on request) and optipng for PNG; `preserve_meta_data: false`
/// drops metadata. A result is never larger than its input: when nothing is gained, the input's
/// bytes are kept. Other formats pass through unchanged.
struct ImageOptimizeRobot: Sendable {
    let progressive: Bool
    let keepMetadata: Bool

    init(options: [String: JSONValue]) {
        progressive = options["progressive"]?.boolValue ?? false
        keepMetadata = options["preserve_meta_data"]?.boolValue ?? true
    }

    func optimize(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> AssemblyFile {
        let slot = try ResultSlot(name: file.name, in: context.folder)
        let command: [String]
        switch file.ext {
        case "jpg", "jpeg":
            command = ["jpegtran", "-copy", keepMetadata ? "all" : "none", "-optimize"] + (progressive ? ["-progressive"] : [])
                + ["-outfile", slot.path, file.path]
        case "png":
            command = ["optipng", "-quiet", "-o2", "-out", slot.path] + (keepMetadata ? [] : ["-strip", "all"]) + ["--", file.path]
        default:
            command = []
        }
        var optimized = false
        if !command.isEmpty {
            let outcome: ChildProcess.Outcome
            do {
                outcome = try ChildProcess.runBlocking(command, timeout: .seconds(300), isCanceled: context.isCanceled)
            } catch {
                throw RobotError(code: "IMAGE_OPTIMIZE_ERROR", message: "cannot optimize '\(file.name)': \(command[0]) did not finish")
            }
            if outcome.status == 127 {
                throw RobotError(code: "INTERNAL_COMMAND_ERROR", message: "\(command[0]) is not installed; install it: apt-get install libjpeg-turbo-progs optipng")
            }
            guard outcome.status == 0 else {
                let detail = TerminalText.printable(String(outcome.stderr.replacingOccurrences(of: file.path, with: file.name).prefix(300)))
                throw RobotError(code: "IMAGE_OPTIMIZE_ERROR", message: "cannot optimize '\(file.name)': \(detail)")
            }
            optimized = Self.size(slot.path) < file.size
        }
        if !optimized {
            unlink(slot.path)
            do {
                try FileManager.default.copyItem(atPath: file.path, toPath: slot.path)
            } catch {
                throw RobotError(code: "INTERNAL_COMMAND_ERROR", message: "cannot store the result of '\(file.name)'")
            }
        }
        return slot.file(from: file, meta: ["original_size": .int(Int(file.size))])
    }

    private static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? Int64.max
    }
}
