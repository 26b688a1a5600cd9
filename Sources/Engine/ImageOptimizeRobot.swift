import Basics
import Foundation
import Spec
import Wire

/// `/image/optimize`: lossless re-encoding with the field's own tools, jpegtran for JPEG (Huffman
/// tables optimized, `progressive` on request) and optipng for PNG; `preserve_meta_data: false`
/// drops metadata. A result is never larger than its input: when nothing is gained, the input's
/// bytes are kept. Other formats pass through unchanged.
struct ImageOptimizeRobot: Sendable {
    let progressive: Bool
    let keepMetadata: Bool

    init(_ parameters: ImageOptimize.Parameters) {
        progressive = parameters.progressive
        keepMetadata = parameters.keepMetadata
    }

    func optimize(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> AssemblyFile {
        let kind = ContentSniffing.imageExtension(of: file.path)
        if kind != nil { try ImageLimits.check(file.path, of: file, limit: context.limits.imagePixels) }
        let slot = try ResultSlot(name: file.name, in: context.folder)
        let command: [String]
        switch kind {
        case "jpg":
            command = ["jpegtran", "-copy", keepMetadata ? "all" : "none", "-optimize"] + (progressive ? ["-progressive"] : [])
                + ["-outfile", slot.path, file.path]
        case "png":
            command = ["optipng", "-quiet", "-o2", "-out", slot.path] + (keepMetadata ? [] : ["-strip", "all"]) + ["--", file.path]
        default:
            command = []
        }
        var optimized = false
        if !command.isEmpty {
            _ = try RobotTool.run(command, for: file, action: "optimize", code: .imageOptimizeError, context: context,
                                  timeout: .seconds(300), package: "libjpeg-turbo-progs optipng", hiding: [slot.path])
            optimized = Self.size(slot.path) < file.size
        }
        if !optimized {
            unlink(slot.path)
            do {
                try FileManager.default.copyItem(atPath: file.path, toPath: slot.path)
            } catch {
                throw RobotError(code: .internalCommandError, message: "cannot store the result of '\(file.name)'")
            }
        }
        return slot.file(from: file, meta: ["original_size": .int(Int(file.size))])
    }

    private static func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : Int64.max
    }
}

extension ImageOptimize: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork { .eachFile(ImageOptimizeRobot(parameters)) }
}

extension ImageOptimizeRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { [try optimize(file, context: context)] }
}
