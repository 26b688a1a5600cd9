import Basics
import Foundation
import Spec

/// `/file/decompress`: every regular file of each input archive becomes a result, with its path
/// inside the archive in `meta.relative_path`; `password` opens encrypted archives.
struct FileDecompressRobot: Sendable {
    let password: String?
    let limits: ArchiveReader.Limits

    init(_ parameters: FileDecompress.Parameters, limits: ArchiveReader.Limits = .init()) {
        password = parameters.password
        self.limits = limits
    }

    func decompress(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        try ArchiveReader(limits: limits).extract(file, into: context.folder, password: password, isCanceled: context.isCanceled).map { item in
            item.slot.file(from: file, meta: ["relative_path": .string(item.relativePath)])
        }
    }
}

extension FileDecompress: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork { .eachFile(FileDecompressRobot(parameters)) }
}

extension FileDecompressRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { try decompress(file, context: context) }
}
