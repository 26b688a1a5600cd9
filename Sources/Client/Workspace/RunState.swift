import APIClients
import Foundation
import Basics
import HTTPClient
import Synchronization

/// What a run remembers between invocations (`.pipeline/run-state.json`): for each planned
/// Assembly and endpoint, the id it was given (recorded before the create request, so a retried
/// create can never make a second Assembly) and its URL once known. No secret is ever stored.
/// Kept per endpoint: a run elsewhere (a dead `--endpoint`) leaves this endpoint's Assemblies known.
///
/// Each change is one line appended to a journal beside the file (`run-state.json.journal`),
/// so a run of n Assemblies writes O(n) bytes rather than rewriting the whole state 2n times;
/// a single `write` of a line is whole after a killed process. The journal is folded into the
/// file when a run starts and when it ends. A run's Assemblies share it: each change and its
/// journal line are made under one lock, so lines are in the order the changes were made (the
/// methods are async for the callers' sake, and never suspend).
final class RunState: Sendable {
    struct Entry: Codable, Sendable, Equatable {
        var assemblyID: String
        var assemblyURL: String?
        /// The endpoint as named by the user (`local` or a URL); entries of other endpoints are ignored.
        var endpoint: String?
        /// The job it runs for (an Assembly of missing steps has an id no plan lists).
        var job: String?
        /// For an Assembly of missing steps, the plan id of the planned Assembly it makes part of.
        var partOf: String?

        enum CodingKeys: String, CodingKey {
            case assemblyID = "assembly_id", assemblyURL = "assembly_url", endpoint, job, partOf = "part_of"
        }

        /// The stored URL, when it is on the origin of `address` (the endpoint the run talks to)
        /// and names this Assembly (`StoredAssemblyURL.trusted`).
        func assemblyURL(on address: String) -> String? { StoredAssemblyURL.trusted(assemblyURL, id: assemblyID, on: address) }

        /// How the service at `address` is asked about the Assembly: by its id, at the stored URL
        /// where that is trusted and not the endpoint's own for the id (`StoredAssemblyURL.reference`).
        func reference(on address: String) -> AssemblyReference { StoredAssemblyURL.reference(assemblyURL, id: assemblyID, on: address) }
    }

    private let path: String
    /// By `key(planID, endpoint)`.
    private let entries: Mutex<[String: Entry]>

    /// Where the entry of `planID` made against `endpoint` is kept: the plan id, then the endpoint.
    static func key(_ planID: String, endpoint: String?) -> String {
        endpoint.map { planID + " " + $0 } ?? planID
    }

    /// The plan id of a key (a state file of older versions keys by the plan id alone).
    static func planID(of key: String) -> String {
        key.firstIndex(of: " ").map { String(key[..<$0]) } ?? key
    }

    /// The state at `path`; an unreadable state file stops the run (read as empty, it would
    /// make every Assembly it names again), and so does one that cannot be folded.
    init(path: String) throws {
        self.path = path
        let read = try Self.read(path)
        try Self.fold(read, into: path)
        entries = Mutex(read)
    }

    /// The journal of `path`.
    static func journal(of path: String) -> String { path + ".journal" }

    /// The bytes of the state file or journal at `path`, nil when missing.
    private static func present(_ path: String) throws(UnreadableState) -> Data? {
        do { return try FileSystem.readIfPresent(path, limit: 1 << 30) } catch { throw UnreadableState(path: path, reason: error.description) }
    }

    /// The entries of a run-state file and its journal (none when missing), by `key(planID,
    /// endpoint)`: its one reader.
    static func read(_ path: String) throws(UnreadableState) -> [String: Entry] {
        var entries: [String: Entry] = [:]
        if let data = try present(path) {
            do {
                for (key, entry) in try StateCoding.decode([String: Entry].self, from: data) { entries[Self.key(planID(of: key), endpoint: entry.endpoint)] = entry }
            } catch {
                throw UnreadableState(path: path, reason: "\(error)")
            }
        }
        guard let journal = try present(journal(of: path)) else { return entries }
        // Each line is one change; a line that does not read (cut short by a crash) is skipped.
        for line in journal.split(separator: UInt8(ascii: "\n")) {
            guard let change = try? StateCoding.decode(Change.self, from: Data(line)) else { continue }  // torn: never written whole
            apply(change, to: &entries)
        }
        return entries
    }

    /// A journal line's change: an entry recorded for its plan and endpoint, or a plan forgotten on every endpoint.
    private static func apply(_ change: Change, to entries: inout [String: Entry]) {
        let planID = planID(of: change.planID)
        if let entry = change.entry {
            entries[key(planID, endpoint: entry.endpoint)] = entry
        } else {
            for key in entries.keys where Self.planID(of: key) == planID { entries[key] = nil }
        }
    }

    /// The entry for `planID` made against `endpoint`.
    func entry(_ planID: String, endpoint: String) async -> Entry? {
        entries.withLock { $0[Self.key(planID, endpoint: endpoint)] }
    }

    /// Records `entry` for `planID` on its endpoint (nil forgets the plan on every endpoint): one
    /// line appended to the journal.
    func set(_ entry: Entry?, for planID: String) async throws {
        try entries.withLock { entries in try record(Change(planID: planID, entry: entry), in: &entries) }
    }

    /// Applies `change` to `entries` and appends its line to the journal.
    private func record(_ change: Change, in entries: inout [String: Entry]) throws {
        Self.apply(change, to: &entries)
        try FileManager.default.createDirectory(atPath: FolderPath.of(path), withIntermediateDirectories: true)
        var line = try StateCoding.encoder.encode(change)
        line.append(UInt8(ascii: "\n"))
        let descriptor = open(Self.journal(of: path), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileError(path: Self.journal(of: path), operation: "open", code: errno) }
        defer { close(descriptor) }
        // After a line a crash cut short, a change starts a line of its own (else it would be read
        // as part of the torn one, and lost).
        var last: UInt8 = 0
        let end = lseek(descriptor, 0, SEEK_END)
        if end > 0, pread(descriptor, &last, 1, end - 1) == 1, last != UInt8(ascii: "\n") { line.insert(UInt8(ascii: "\n"), at: 0) }
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else { throw FileError(path: Self.journal(of: path), operation: "write", code: written < 0 ? errno : EIO) }
    }

    /// Folds the journal into the file (at the end of a run). With `planIDs` (a whole run whose
    /// every Assembly completed), the entries of other plans go: they are an older manifest's,
    /// and `status` then shows this run's Assemblies only.
    func fold(keeping planIDs: Set<String>? = nil) async throws {
        try entries.withLock { entries in
            let kept = planIDs.map { wanted in entries.filter { wanted.contains(Self.planID(of: $0.key)) } } ?? entries
            let forgetting = kept.count != entries.count
            entries = kept
            try Self.fold(entries, into: path, always: forgetting)
        }
    }

    /// Writes `entries` to `path` atomically (when a journal holds changes, or `always`), then removes the journal.
    private static func fold(_ entries: [String: Entry], into path: String, always: Bool = false) throws {
        guard always || FileManager.default.fileExists(atPath: journal(of: path)) else { return }
        let encoder = StateCoding.encoder
        encoder.outputFormatting.insert(.prettyPrinted)
        try AtomicFile.write(try encoder.encode(entries), to: path)
        unlink(journal(of: path))
    }

    /// One journal line.
    private struct Change: Codable {
        var planID: String
        var entry: Entry?

        enum CodingKeys: String, CodingKey {
            case planID = "plan_id", entry
        }
    }
}

/// A state file that is not what this tool writes (edited by hand, damaged, another tool's), or
/// cannot be read at all: never taken for an empty one, which would be written over.
public struct UnreadableState: Error, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What the decoder (or the system) said.
    public var reason: String
    /// What moving it away costs.
    public var cost = "the next run then makes new Assemblies for any it named"

    /// Creates the error.
    public init(path: String, reason: String, cost: String? = nil) {
        (self.path, self.reason) = (path, reason)
        if let cost { self.cost = cost }
    }

    public var description: String {
        "the state file '\(path)' cannot be read (\(reason)); move it away to start afresh, knowing that \(cost)"
    }
}
