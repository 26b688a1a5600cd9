import Basics
import Crypto
import Foundation
import Spec

/// The export robots (`/s3/store` and every other `/…/store`), emulated: each file is copied to
/// `exports/<credentials>/<path>` in the engine's data folder and reported with a `file://` URL.
/// `path` takes the service's variables (default `${unique_prefix}/${file.url_name}`).
struct ExportRobot: Sendable {
    let robot: String
    let account: String
    let path: String

    init(robot: String, parameters: EmulatedStore.Parameters) {
        self.init(robot: robot, account: parameters.account, path: parameters.path)
    }

    /// The emulation of a step of `robot` into `exports/<account>/<path>`.
    init(robot: String, account: String, path: String) {
        self.robot = robot
        self.account = account
        self.path = path
    }

    /// Copies `file` below the engine's exports folder and returns it with its new URL.
    func export(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> AssemblyFile {
        let relative = try Self.expand(path, for: file, context: context)
        let destination = context.exports + "/" + account + "/" + relative
        // Every folder below the data folder is opened without following links (one planted at
        // any depth would receive the file), and the copy is renamed over the destination: files
        // exported to one path at once (a fixed `path`) replace each other whole, as on a bucket.
        do {
            let folder = try LinkFreeFolder.open(FolderPath.of(destination), below: FolderPath.of(context.exports))
            try folder.placeCopy(of: file.path, as: (destination as NSString).lastPathComponent, followingLinks: true)
        } catch {
            // Only the system's reason is said: the full error names the engine's folders.
            throw RobotError(code: .storeError, message: "cannot export '\(file.name)' to '\(relative)': \(error.shortReason)")
        }
        var exported = file
        exported.id = AssemblyFile.newID()
        exported.path = destination
        exported.inPlace = nil
        exported.exportURL = URL(fileURLWithPath: destination).absoluteString
        return exported
    }

    /// `template` with its variables replaced, as a relative path whose parts are all safe names:
    /// no part is empty, `.` or `..`, so nothing lands outside the account's folder.
    static func expand(_ template: String, for file: AssemblyFile, context: RobotContext) throws(RobotError) -> String {
        let output = try substitute(template, for: file, context: context, option: "path")
        let parts = output.split(separator: "/", omittingEmptySubsequences: true)
        guard !parts.isEmpty else { throw RobotError(code: .invalidStepParameter, message: "'path' names no file") }
        // Nothing may climb out of the account's folder, or make two paths name one file.
        if let bad = parts.first(where: { $0 == "." || $0 == ".." }) {
            throw RobotError(code: .invalidStepParameter, message: "'path' becomes '\(output)', whose part '\(bad)' would leave its folder")
        }
        return parts.map { FileNames.safeComponent(String($0)) }.joined(separator: "/")
    }

    /// `template` (the value of `option`) with the service's Assembly variables replaced.
    static func substitute(_ template: String, for file: AssemblyFile, context: RobotContext, option: String) throws(RobotError) -> String {
        let unique = RandomID.hex32()
        let values: [String: String] = [
            "unique_prefix": String(unique.prefix(2)) + "/" + String(unique.dropFirst(2)),
            "unique_original_prefix": String(file.originalID.prefix(2)) + "/" + String(file.originalID.dropFirst(2)),
            "assembly.id": context.assembly, "previous_step.name": context.step.uses.first ?? ":original",
            "file.id": file.id, "file.name": file.name, "file.url_name": Self.urlName(file.name), "file.basename": file.basename,
            "file.ext": file.ext, "file.original_name": file.originalName, "file.original_basename": file.originalBasename,
            "file.original_id": file.originalID, "file.mime": file.mime, "file.size": String(file.size),
        ]
        var output = ""
        var rest = Substring(template)
        while let start = rest.range(of: "${") {
            output += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                throw RobotError(code: .invalidStepParameter, message: "'\(option)' has a '${' without its '}'")
            }
            let name = String(rest[start.upperBound..<end])
            if let value = values[name] {
                output += value
            } else if name.hasPrefix("fields."), let field = context.fields[String(name.dropFirst(7))] {
                output += field.stringValue ?? field.serialized()
            } else {
                throw RobotError(code: .invalidStepParameter, message: "'\(option)' uses ${\(name)}, which the local engine does not know")
            }
            rest = rest[rest.index(after: end)...]
        }
        return output + rest
    }

    /// A name safe in URLs: letters, digits, `-`, `_` and `.`, everything else `_`.
    static func urlName(_ name: String) -> String {
        String(name.unicodeScalars.map { scalar in
            CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || "-_.".unicodeScalars.contains(scalar) ? Character(scalar) : "_"
        })
    }
}

extension EmulatedStore: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork { .eachFile(ExportRobot(robot: robot, parameters: parameters)) }
}

extension ExportRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        [try export(file, context: context)]
    }
}
