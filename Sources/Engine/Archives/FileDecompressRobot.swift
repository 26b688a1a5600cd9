import Basics
import Foundation

/// `/file/decompress`: every regular file of each input archive becomes a result, with its path
/// inside the archive in `meta.relative_path`; `password` opens encrypted archives.
struct FileDecompressRobot: Sendable {
    let password: String?
    let limits: ArchiveReader.Limits

    init(options: [String: JSONValue], limits: ArchiveReader.Limits = .init()) {
        password = options["password"]?.stringValue
        self.limits = limits
    }

    func decompress(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        try ArchiveReader(limits: limits).extract(file, into: context.folder, password: password, isCanceled: context.isCanceled).map { item in
            item.slot.file(from: file, meta: ["relative_path": .string(item.relativePath)])
        }
    }
}
