import Foundation
import Basics

/// What a run remembers between invocations (`.pipeline/run-state.json`): for each planned
/// Assembly, the id it was given (recorded before the create request, so a retried create can
/// never make a second Assembly) and its URL once known. No secret is ever stored.
actor RunState {
    struct Entry: Codable, Sendable, Equatable {
        var assemblyID: String
        var assemblyURL: String?
        /// The endpoint as named by the user (`local` or a URL); entries of other endpoints are ignored.
        var endpoint: String?

        enum CodingKeys: String, CodingKey {
            case assemblyID = "assembly_id", assemblyURL = "assembly_url", endpoint
        }
    }

    private let path: String
    private var entries: [String: Entry]

    init(path: String) {
        self.path = path
        entries = Self.read(path)
    }

    /// The entries of a run-state file (none when it is missing or unreadable): its one reader.
    static func read(_ path: String) -> [String: Entry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        return (try? StateCoding.decode([String: Entry].self, from: data)) ?? [:]
    }

    /// The entry for `planID` made against `endpoint`.
    func entry(_ planID: String, endpoint: String) -> Entry? {
        entries[planID].flatMap { $0.endpoint == endpoint ? $0 : nil }
    }

    func set(_ entry: Entry?, for planID: String) throws {
        entries[planID] = entry
        let encoder = StateCoding.encoder
        encoder.outputFormatting.insert(.prettyPrinted)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try AtomicFile.write(try encoder.encode(entries), to: path)
    }
}
