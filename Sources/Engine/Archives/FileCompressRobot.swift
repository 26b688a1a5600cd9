import Basics
import Foundation
import Spec

/// `/file/compress`: all of a step's input files in one archive: `format` tar (with `gzip`) or
/// zip, `archive_name`, `compression_level` (-0 to -9) and `file_layout`: `simple` puts every
/// file at the top, `advanced` (the default) and `relative-path` in a folder per original upload.
struct FileCompressRobot: Sendable {
    let format: ArchiveWriter.Format
    let name: String
    let level: Int
    let flat: Bool

    init(_ parameters: FileCompress.Parameters) {
        format = parameters.zip ? .zip : (parameters.gzip ? .tarGzip : .tar)
        name = parameters.archiveName + (parameters.zip ? ".zip" : parameters.gzip ? ".tar.gz" : ".tar")
        level = parameters.level
        flat = parameters.flat
    }

    func compress(_ inputs: [AssemblyFile], context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        guard let first = inputs.first else { return [] }
        let slot = try ResultSlot(name: name, in: context.folder)
        let writer = try ArchiveWriter(path: slot.path, name: slot.name, format: format, level: level)
        var used: Set<String> = []
        for file in inputs {
            guard !context.isCanceled() else { throw RobotError.canceled }
            let folder = flat ? "" : FileNames.safeComponent(file.originalBasename) + "/"
            try writer.add(file.path, as: Self.unique(folder + FileNames.safeComponent(file.name), in: &used))
        }
        try writer.close()
        // Made of every input, the archive is its own original: no one source owns it.
        return [slot.file(from: first, own: true)]
    }

    /// `path`, or `path` with -2, -3, ... before its extension when an earlier file took it.
    static func unique(_ path: String, in used: inout Set<String>) -> String {
        var candidate = path
        var number = 2
        while !used.insert(candidate).inserted {
            let ext = (path as NSString).pathExtension
            let stem = ext.isEmpty ? path : String(path.dropLast(ext.count + 1))
            candidate = stem + "-\(number)" + (ext.isEmpty ? "" : "." + ext)
            number += 1
        }
        return candidate
    }
}

extension FileCompress: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork {
        let compressor = FileCompressRobot(parameters)
        return .allFiles { inputs, context throws(RobotError) in try compressor.compress(inputs, context: context) }
    }
}
