import APIClients
import Basics
import Crypto
import Foundation

/// A Template as the last run (or `templates sync`) left it on an endpoint.
public struct SyncedTemplate: Codable, Sendable, Equatable {
    /// Its id on the service.
    public var id: String
    /// SHA-256 of its content and settings, as sent.
    public var contentSHA256: String

    enum CodingKeys: String, CodingKey {
        case id, contentSHA256 = "content_sha256"
    }

    /// Creates a record.
    public init(id: String, contentSHA256: String) {
        self.id = id
        self.contentSHA256 = contentSHA256
    }

    /// The record of `declared` synced as `id`.
    public init(id: String, declared: DeclaredTemplate) {
        self.init(id: id, contentSHA256: Self.digest(content: declared.content, requireSignatureAuth: declared.requireSignatureAuth))
    }

    /// The record a Template on the account would have (to compare with what a sync recorded):
    /// its content without the `auth` the service keeps in it, which no manifest declares.
    public init(id: String, remote: RemoteTemplate) {
        var content = remote.content.objectValue ?? [:]
        content["auth"] = nil
        self.init(id: id, contentSHA256: Self.digest(content: .object(content), requireSignatureAuth: remote.requireSignatureAuth))
    }

    /// The digest `contentSHA256` holds for a Template's content and settings.
    public static func digest(content: JSONValue, requireSignatureAuth: Bool) -> String {
        SHA256.hex(JSONValue.object(["content": content, "require_signature_auth": .bool(requireSignatureAuth)]).serialized())
    }
}

extension Workspace {
    /// `templates.json` in the manifest's state: per endpoint, its Templates as last synced.
    var templatesFile: String { manifestStateDirectory + "/templates.json" }

    /// The Templates last synced to `endpoint` (as the user names it), by name; none when no
    /// sync was recorded. The file is input, never truth: an entry whose id is not a plain
    /// Template id, or whose name is not printable text, is left out.
    public func syncedTemplates(endpoint: String) throws(UnreadableState) -> [String: SyncedTemplate] {
        (try Self.templateRecords(templatesFile)[endpoint] ?? [:]).filter { name, template in TemplateClient.isPlainID(template.id) && name == name.printable }
    }

    /// The ids of Templates on `endpoint` that the other manifests of this project record as
    /// theirs (their own state folders): a Template two manifests claim is neither's to delete.
    /// One whose record cannot be read is an error: what it claims is unknown.
    public func templatesClaimedElsewhere(endpoint: String) throws(UnreadableState) -> Set<String> {
        let folder = stateDirectory + "/manifests"
        var claimed: Set<String> = []
        let names: [String]
        do { names = try FileSystem.names(in: folder) } catch { throw UnreadableState(path: folder, reason: error.shortReason, cost: Self.templatesCost) }
        for name in names where folder + "/" + name != manifestStateDirectory {
            claimed.formUnion((try Self.templateRecords(folder + "/" + name + "/templates.json")[endpoint] ?? [:]).values.map(\.id))
        }
        return claimed
    }

    /// Records what a sync left on `endpoint`, forgetting the Templates named in `removed`; the
    /// other endpoints' records stay as they were.
    public func recordTemplates(_ templates: [String: SyncedTemplate], endpoint: String, removed: Set<String> = []) throws {
        var all = try Self.templateRecords(templatesFile)
        all[endpoint, default: [:]].merge(templates) { _, new in new }
        for name in removed { all[endpoint]?[name] = nil }
        try FileManager.default.createDirectory(atPath: manifestStateDirectory, withIntermediateDirectories: true)
        let encoder = StateCoding.encoder
        encoder.outputFormatting.insert(.prettyPrinted)
        try AtomicFile.write(try encoder.encode(all), to: templatesFile)
    }

    /// What moving a templates file away costs.
    private static let templatesCost = "this manifest then no longer knows which Templates it made (a prune leaves them)"

    /// A `templates.json`: per endpoint, by name; empty when there is none.
    private static func templateRecords(_ path: String) throws(UnreadableState) -> [String: [String: SyncedTemplate]] {
        do {
            guard let data = try FileSystem.readIfPresent(path) else { return [:] }
            return try StateCoding.decode([String: [String: SyncedTemplate]].self, from: data)
        } catch let error as FileError {
            throw UnreadableState(path: path, reason: error.shortReason, cost: templatesCost)
        } catch {
            throw UnreadableState(path: path, reason: "\(error)", cost: templatesCost)
        }
    }
}
