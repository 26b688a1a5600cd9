import APIClients
import Basics
import Planning

/// A Template as a manifest declares it.
public typealias DeclaredTemplate = (content: JSONValue, requireSignatureAuth: Bool)

/// One Template of a manifest next to the endpoint's: what a sync would do to it and, compared
/// live, which fields it would change.
public struct TemplateComparison: Sendable, Equatable {
    /// What a sync does to the Template.
    public enum State: String, Sendable {
        case create = "+", update = "~", unchanged = "=", undeclared = "-"
    }

    /// The Template's name.
    public var name: String
    /// What a sync does.
    public var state: State
    /// Its id on the endpoint, when it has one.
    public var id: String?
    /// Field-level changes from the endpoint's Template to the manifest's (live comparisons only).
    public var changes: [ValueChange] = []

    /// The manifest's Templates against the endpoint's, by name, sorted: every declared one, then the
    /// endpoint's undeclared ones.
    public static func compare(_ declared: [String: DeclaredTemplate], remote: [RemoteTemplate]) -> [TemplateComparison] {
        let byName = Dictionary(remote.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let known = declared.keys.sorted().map { name -> TemplateComparison in
            guard let existing = byName[name], let template = declared[name] else { return TemplateComparison(name: name, state: .create) }
            let changes = Self.changes(from: existing, to: template)
            return TemplateComparison(name: name, state: changes.isEmpty ? .unchanged : .update, id: existing.id, changes: changes)
        }
        let others = byName.keys.sorted().filter { declared[$0] == nil }.map { TemplateComparison(name: $0, state: .undeclared, id: byName[$0]?.id) }
        return known + others
    }

    /// The manifest's Templates against the workspace's record of the last sync to an endpoint,
    /// by content digest (no field-level changes: the record keeps no content).
    public static func compare(_ declared: [String: DeclaredTemplate], synced: [String: SyncedTemplate]) -> [TemplateComparison] {
        let known = declared.keys.sorted().map { name -> TemplateComparison in
            guard let last = synced[name], let template = declared[name] else { return TemplateComparison(name: name, state: .create) }
            let same = last.contentSHA256 == SyncedTemplate(id: last.id, declared: template).contentSHA256
            return TemplateComparison(name: name, state: same ? .unchanged : .update, id: last.id)
        }
        let others = synced.keys.sorted().filter { declared[$0] == nil }.map { TemplateComparison(name: $0, state: .undeclared, id: synced[$0]?.id) }
        return known + others
    }

    /// What an update of `remote` to `declared` changes, leaf by leaf: every field of the content
    /// (a `notify_url` set on the service, which manifests cannot declare, shows as removed) but the
    /// service's own `auth`, with `allow_steps_override` defaulting to true, and `require_signature_auth`.
    public static func changes(from remote: RemoteTemplate, to declared: DeclaredTemplate) -> [ValueChange] {
        ValueChange.changes(
            from: owned(remote.content, requireSignatureAuth: remote.requireSignatureAuth),
            to: owned(declared.content, requireSignatureAuth: declared.requireSignatureAuth))
    }

    private static func owned(_ content: JSONValue, requireSignatureAuth: Bool) -> JSONValue {
        var fields = content.objectValue ?? [:]
        fields["auth"] = nil
        fields["steps"] = fields["steps"] ?? .object([:])
        fields["allow_steps_override"] = .bool(fields["allow_steps_override"]?.boolValue ?? true)
        fields["require_signature_auth"] = .bool(requireSignatureAuth)
        return .object(fields)
    }
}
