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

    /// The Templates last synced to `endpoint` (as the user names it), by name. The file is input,
    /// never truth: an entry whose id is not a plain Template id, or whose name is not printable
    /// text, is left out.
    public func syncedTemplates(endpoint: String) -> [String: SyncedTemplate] {
        guard let data = FileManager.default.contents(atPath: templatesFile),
              let all = try? StateCoding.decode([String: [String: SyncedTemplate]].self, from: data) else { return [:] }
        return (all[endpoint] ?? [:]).filter { name, template in TemplateClient.isPlainID(template.id) && name == name.printable }
    }

    /// The ids of Templates on `endpoint` that the other manifests of this project record as
    /// theirs (their own state folders): a Template two manifests claim is neither's to delete.
    public func templatesClaimedElsewhere(endpoint: String) -> Set<String> {
        let folder = stateDirectory + "/manifests"
        var claimed: Set<String> = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where folder + "/" + name != manifestStateDirectory {
            guard let data = FileManager.default.contents(atPath: folder + "/" + name + "/templates.json"),
                  let all = try? StateCoding.decode([String: [String: SyncedTemplate]].self, from: data) else { continue }
            claimed.formUnion((all[endpoint] ?? [:]).values.map(\.id))
        }
        return claimed
    }

    /// Records what a sync left on `endpoint`, forgetting the Templates named in `removed`.
    public func recordTemplates(_ templates: [String: SyncedTemplate], endpoint: String, removed: Set<String> = []) throws {
        var all: [String: [String: SyncedTemplate]] = [:]
        if let data = FileManager.default.contents(atPath: templatesFile) {
            all = (try? StateCoding.decode([String: [String: SyncedTemplate]].self, from: data)) ?? [:]
        }
        all[endpoint, default: [:]].merge(templates) { _, new in new }
        for name in removed { all[endpoint]?[name] = nil }
        try FileManager.default.createDirectory(atPath: manifestStateDirectory, withIntermediateDirectories: true)
        let encoder = StateCoding.encoder
        encoder.outputFormatting.insert(.prettyPrinted)
        try AtomicFile.write(try encoder.encode(all), to: templatesFile)
    }
}
