import Basics
import Crypto
import Foundation

/// The plan files `pipeline plan --out` left, each with the fingerprint of the plan it holds and
/// what `stat` said of it then. A plan whose fingerprint is remembered for a file that `stat` still
/// describes the same way is in that file already: it is neither rendered nor compared again, as
/// git leaves its index alone when the stat data of every file matches. Anything else (another
/// plan, another build of the tool, a file edited, touched, replaced or gone) writes as before.
public struct WrittenPlans: Sendable {
    /// The state file (JSON) holding the entries.
    public let stateFile: String
    /// The build of the tool that renders plans: its version and its executable's identity, so a
    /// rebuilt tool whose rendering changed never trusts what an older build wrote. Without an
    /// identity (no `/proc`), nothing is remembered.
    let tool: String?

    /// Entries beyond this many are dropped (the newest is kept).
    static let mostFiles = 16

    /// Entries kept in `stateFile`, for plans rendered by the tool `version`.
    public init(stateFile: String, version: String) {
        self.stateFile = stateFile
        var info = stat()
        let build = stat("/proc/self/exe", &info) == 0 ? FileIdentity(info) : nil
        tool = build.map { "\(version) \($0.device):\($0.inode):\($0.size):\($0.modified)" }
    }

    /// Whether the file at `path` is known to hold `plan` with `warnings`, as this tool writes it.
    public func hold(_ plan: Plan, warnings: [Diagnostic] = [], at path: String) -> Bool {
        var info = stat()
        guard let fingerprint = fingerprint(plan, warnings: warnings), let entry = entries()[Self.key(path)], lstat(path, &info) == 0,
              let identity = FileIdentity(info) else { return false }
        return entry == Entry(plan: fingerprint, file: identity)
    }

    /// Remembers that the file `info` describes, at `path`, holds `plan` with `warnings`. A state
    /// file that cannot be written only means the next plan is rendered again.
    public func remember(_ plan: Plan, warnings: [Diagnostic] = [], at path: String, info: stat) {
        guard let fingerprint = fingerprint(plan, warnings: warnings), let identity = FileIdentity(info) else { return }
        var entries = entries()
        if entries.count >= Self.mostFiles { entries = [:] }
        entries[Self.key(path)] = Entry(plan: fingerprint, file: identity)
        let json = JSONValue.object(["version": .int(1), "files": .object(entries.mapValues(\.json))])
        guard StateFile.mayWrite(stateFile) else { return }
        try? AtomicFile.write(json.compactData, to: stateFile, durable: false)  // a cache: unwritten, the plan is rendered again
    }

    /// The SHA-256 of what decides the plan's text: the format, this tool, the pipeline, the
    /// manifest, every Assembly's id (each derived from its job, instructions and files) and the
    /// warnings written with it; nil without the identity of the tool.
    func fingerprint(_ plan: Plan, warnings: [Diagnostic] = []) -> String? {
        guard let tool else { return nil }
        let parts: [JSONValue] = [.int(Plan.formatVersion), .string(tool), .string(plan.pipeline), .string(plan.manifest)]
            + plan.assemblies.map { .string($0.id) } + (warnings.isEmpty ? [] : [.array(warnings.map(\.json))])
        return SHA256.hex(Array(JSONValue.array(parts).compactData))
    }

    /// `path` made absolute, so a plan made from another folder names the same file alike.
    static func key(_ path: String) -> String { RealPath.normalized(path) }

    private struct Entry: Equatable {
        var plan: String
        var file: FileIdentity

        var json: JSONValue {
            .object([
                "plan": .string(plan), "size": .int(Int(file.size)), "modified": .int(Int(file.modified)),
                "changed": .int(Int(file.changed)), "inode": .string(String(file.inode)), "device": .string(String(file.device)),
            ])
        }

        init(plan: String, file: FileIdentity) {
            self.plan = plan
            self.file = file
        }

        init?(_ json: JSONValue) {
            guard let plan = json["plan"]?.stringValue, let size = json["size"]?.intValue, let modified = json["modified"]?.intValue,
                  let changed = json["changed"]?.intValue, let inode = json["inode"]?.stringValue.flatMap({ UInt64($0) }),
                  let device = json["device"]?.stringValue.flatMap({ UInt64($0) }) else { return nil }
            self.init(plan: plan, file: FileIdentity(size: Int64(size), modified: Int64(modified), changed: Int64(changed), inode: inode, device: device))
        }
    }

    /// The entries in the state file; none when it is missing, unreadable, of another version, or
    /// not a regular file in real folders (a link a checkout planted is never followed).
    private func entries() -> [String: Entry] {
        guard StateFile.mayWrite(stateFile), let data = try? FileReading.read(stateFile, limit: 1 << 20),  // a cache: unreadable is none
              let json = JSONValue.parseIfValid(data), json["version"]?.intValue == 1, let files = json["files"]?.objectValue else { return [:] }
        return files.compactMapValues(Entry.init)
    }
}
