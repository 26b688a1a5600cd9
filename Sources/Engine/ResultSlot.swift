import Basics
import Foundation

/// Where a robot writes one result file: a fresh id, its own folder under the Assembly's results,
/// and a name made safe to use as a path component.
struct ResultSlot: Sendable {
    let id: String
    let name: String
    let path: String

    /// Makes the folder for a result named `name` under `folder`.
    init(name: String, in folder: String) throws(RobotError) {
        id = AssemblyFile.newID()
        self.name = FileNames.safeComponent(name)
        let directory = folder + "/" + id
        path = directory + "/" + self.name
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RobotError(code: "INTERNAL_COMMAND_ERROR", message: "cannot store the result '\(self.name)'")
        }
    }

    /// The result file once written, derived from `source`, with `meta` added to what its kind reports.
    func file(from source: AssemblyFile, meta: [String: JSONValue] = [:]) -> AssemblyFile {
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        var file = FileFacts.describe(
            id: id, name: name, field: source.field, path: path, size: size, mime: nil, isTus: false,
            original: (source.originalID, source.originalName))
        file.meta.merge(meta) { _, added in added }
        return file
    }
}
