import APIClients
import Basics
import Planning
import Spec

/// Brings the service's Templates in line with a plan's: each one the plan's Assemblies use is
/// created, or (found by name, so never duplicated) updated when its content differs; an
/// unchanged Template costs no write.
public enum TemplateSync {
    /// What was done to one Template.
    public enum Action: String, Sendable {
        case created, updated, unchanged
    }

    /// The Templates the plan's Assemblies use (`instructions.template`), by name.
    static func wanted(in plan: Plan) -> [String: DeclaredTemplate] {
        var wanted: [String: DeclaredTemplate] = [:]
        for assembly in plan.assemblies {
            guard let template = assembly.instructions["template"], let name = template["name"]?.stringValue else { continue }
            wanted[name] = (template["content"] ?? .object([:]), template["require_signature_auth"]?.boolValue ?? false)
        }
        return wanted
    }

    /// Applies the plan's Templates; returns each one's id and what was done, by name.
    public static func apply(_ plan: Plan, client: TemplateClient) async throws -> [String: (id: String, action: Action)] {
        try await apply(wanted(in: plan), client: client)
    }

    /// The manifest's Templates, by name.
    public static func wanted(in manifest: Manifest) -> [String: DeclaredTemplate] {
        Dictionary(manifest.templates.map { ($0.name.value, ($0.content, $0.requireSignatureAuth)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Applies `wanted` Templates by name; returns each one's id and what was done.
    public static func apply(
        _ wanted: [String: DeclaredTemplate], client: TemplateClient
    ) async throws -> [String: (id: String, action: Action)] {
        guard !wanted.isEmpty else { return [:] }
        let remote = Dictionary(try await client.list().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var applied: [String: (id: String, action: Action)] = [:]
        for (name, template) in wanted.sorted(by: { $0.key < $1.key }) {
            if let existing = remote[name] {
                applied[name] = try await adopt(existing, as: template, client: client)
            } else {
                do {
                    let id = try await client.create(name: name, content: template.content, requireSignatureAuth: template.requireSignatureAuth)
                    applied[name] = (id, .created)
                } catch {
                    // Another run (a shard, say) created it meanwhile: adopt that one.
                    guard let raced = try await client.list().first(where: { $0.name == name }) else { throw error }
                    applied[name] = try await adopt(raced, as: template, client: client)
                }
            }
        }
        return applied
    }

    /// The workspace records of what `apply` did to the `wanted` Templates.
    public static func records(
        of applied: [String: (id: String, action: Action)], wanted: [String: DeclaredTemplate]
    ) -> [String: SyncedTemplate] {
        applied.reduce(into: [:]) { records, entry in
            if let template = wanted[entry.key] { records[entry.key] = SyncedTemplate(id: entry.value.id, declared: template) }
        }
    }

    /// The service's Template updated in place when it differs from `template`.
    private static func adopt(_ existing: RemoteTemplate, as template: DeclaredTemplate, client: TemplateClient) async throws -> (id: String, action: Action) {
        guard !TemplateComparison.changes(from: existing, to: template).isEmpty else { return (existing.id, .unchanged) }
        try await client.update(id: existing.id, name: existing.name, content: template.content, requireSignatureAuth: template.requireSignatureAuth)
        return (existing.id, .updated)
    }
}
