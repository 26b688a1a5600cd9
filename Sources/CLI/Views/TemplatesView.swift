import APIClients
import Basics
import Client
import YAML

/// What `templates` says: the comparison (`list`), a Template as manifest YAML (`pull`), and
/// what a sync did (`sync`, `--prune`).
struct TemplatesView: Sendable {
    /// The manifest, as named in hints.
    let manifestPath: String

    /// The action failed.
    func failure(_ error: any Error, context: CommandContext) {
        context.output.failure("\(error)")
    }

    /// `list`: the endpoint's Templates next to the manifest's.
    func list(_ comparisons: [TemplateComparison], context: CommandContext) {
        let listed = TemplateRendering.list(comparisons)
        context.output.out(listed.isEmpty ? "No Templates: the endpoint has none, and the manifest declares none.\n" : listed)
    }

    /// `pull NAME` found no such Template.
    func noTemplate(named name: String, context: CommandContext) {
        context.output.failure("the endpoint has no Template named '\(name)'", hint: "'pipeline templates list \(manifestPath)' shows them")
    }

    /// `pull`: the Template as manifest YAML. JSON is YAML: each step as one flow mapping, ready to
    /// paste under 'templates:'. A '$' is written '$$', so that the manifest's interpolation gives
    /// back the service's text.
    func pulled(_ template: RemoteTemplate, context: CommandContext) {
        var text = "templates:\n  \(YAMLText.scalar(template.name)):\n"
        if template.requireSignatureAuth { text += "    require_signature_auth: true\n" }
        if let allow = template.content["allow_steps_override"]?.boolValue { text += "    allow_steps_override: \(allow)\n" }
        let undeclarable = (template.content.objectValue ?? [:]).filter { !["steps", "allow_steps_override", "auth"].contains($0.key) }
        for (key, value) in undeclarable.sorted(by: { $0.key < $1.key }) {
            text += "    " + YAMLText.comment("on the service, not declarable in a manifest (a sync removes it): \(key): \(value.serialized())") + "\n"
        }
        text += "    steps:\n"
        for (step, instructions) in (template.content["steps"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            text += "      \(YAMLText.json(.string(step))): \(YAMLText.json(instructions).replacingOccurrences(of: "$", with: "$$"))\n"
        }
        context.output.out(text)
    }

    /// `sync` created, updated or left Template `name`.
    func synced(_ name: String, action: String, id: String, context: CommandContext) {
        context.output.out("\(action) \(name)  \(id)\n")
    }

    /// `--prune` leaves Templates that are not this manifest's own.
    func leaving(_ others: Int, context: CommandContext) {
        context.output.error("pipeline: leaving \(plural(others, "Template")) this manifest did not make, that changed since it synced them, or that another manifest records (another manifest's or the account's own)\n")
    }

    /// `--prune` without `--yes` where nothing can be asked: what it would delete.
    func wouldDelete(_ names: String, context: CommandContext) {
        context.output.error("pipeline: --prune would delete:\n\(names)")
    }

    /// `--prune` asks before deleting.
    func askToDelete(_ names: String, count: Int, context: CommandContext) {
        context.output.error("--prune deletes these from the endpoint:\n\(names)Delete \(plural(count, "Template"))? [y/N] ")
    }

    /// `--prune` deleted a Template.
    func deleted(_ template: RemoteTemplate, context: CommandContext) {
        context.output.out("deleted \(template.name)  \(template.id)\n")
    }
}
