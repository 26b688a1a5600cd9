import Basics
import Client
import Foundation
import HTTPClient
import Spec

/// `pipeline templates list|pull|sync MANIFEST`: the manifest's Templates next to the service's.
struct TemplatesCommand: Command {
    static let spec = CommandSpec(
        name: "templates",
        summary: "Compare, pull or sync the Templates a manifest declares with those on its endpoint.",
        discussion: """
        'list' shows every Template of the endpoint (all pages) against the manifest: '=' the same, '~' \
        different (with each changed field), '+' only in the manifest, '-' only on the service. 'pull NAME' \
        prints one Template of the service as manifest YAML, ready to paste under 'templates:'. 'sync' creates \
        or updates the manifest's Templates (by name, never a duplicate) without running Assemblies; with \
        --prune it also deletes the Templates the manifest does not declare.
        """,
        arguments: [
            .init(name: "ACTION", help: "list, pull or sync.", choices: ["list", "pull", "sync"]),
            .init(name: "MANIFEST", help: "The manifest, such as pipeline.yml."),
            .init(name: "NAME", help: "For pull: the Template's name.", optional: true),
        ],
        options: [
            .init(name: "endpoint", valueName: "URL", help: "The Assembly API to use instead of the manifest's (or 'local')."),
            .init(name: "prune", help: "With sync: delete the endpoint's Templates the manifest does not declare."),
            CommandSpec.caCertOption,
        ],
        examples: ["pipeline templates list pipeline.yml", "pipeline templates pull pipeline.yml site-thumbs", "pipeline templates sync pipeline.yml"])

    let action: String
    let manifestPath: String
    let name: String?
    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) throws(UsageError) {
        action = arguments.positionals[0]
        guard ["list", "pull", "sync"].contains(action) else {
            throw UsageError("ACTION must be list, pull or sync, not '\(action)'", command: Self.spec.name)
        }
        guard arguments.positionals.count > 1 else { throw UsageError("missing MANIFEST", command: Self.spec.name) }
        manifestPath = arguments.positionals[1]
        name = arguments.positionals.count > 2 ? arguments.positionals[2] : nil
        if action == "pull", name == nil { throw UsageError("pull needs the Template's NAME", command: Self.spec.name) }
        if action != "pull", let extra = name { throw UsageError("\(action) takes only MANIFEST, not '\(extra)'", command: Self.spec.name) }
        if arguments.positionals.count > 3 { throw UsageError("too many arguments: '\(arguments.positionals[3])'", command: Self.spec.name) }
        if arguments.flag("prune"), action != "sync" { throw UsageError("--prune goes with sync", command: Self.spec.name) }
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let loaded = ManifestLoader(environment: context.environment).load(path: manifestPath)
        context.report(loaded.diagnostics, sources: loaded.sources)
        guard let manifest = loaded.value else { return ExitCode.failure }
        let prepared: RunSetup
        do {
            prepared = try RunSetup.prepare(manifest: manifest, workspace: Workspace(manifest: manifest), arguments: arguments, context: context)
        } catch {
            context.report(error.diagnostics, sources: loaded.sources)
            return ExitCode.failure
        }
        defer { prepared.engine?.stop() }
        let configuration = prepared.configuration
        let client = TemplateClient(configuration: configuration, http: HTTPClient())
        let wanted = TemplateSync.wanted(in: manifest)
        do {
            switch action {
            case "list": try await list(client, wanted: wanted, context: context)
            case "pull": return try await pull(client, context: context)
            default: try await sync(client, wanted: wanted, configuration: configuration, context: context)
            }
        } catch {
            context.output.failure("\(error)")
            return ExitCode.failure
        }
        return ExitCode.success
    }

    private func list(_ client: TemplateClient, wanted: [String: DeclaredTemplate], context: CommandContext) async throws {
        let listed = TemplateRendering.list(TemplateComparison.compare(wanted, remote: try await client.list()))
        context.output.out(listed.isEmpty ? "No Templates: the endpoint has none, and the manifest declares none.\n" : listed)
    }

    private func pull(_ client: TemplateClient, context: CommandContext) async throws -> Int32 {
        guard let template = try await client.list().first(where: { $0.name == name }) else {
            context.output.failure("the endpoint has no Template named '\(name ?? "")'", hint: "'pipeline templates list \(manifestPath)' shows them")
            return ExitCode.failure
        }
        // JSON is YAML: each step as one flow mapping, ready to paste under 'templates:'. A '$' is
        // written '$$', so that the manifest's interpolation gives back the service's text.
        var text = "templates:\n  \(template.name):\n"
        if template.requireSignatureAuth { text += "    require_signature_auth: true\n" }
        if let allow = template.content["allow_steps_override"]?.boolValue { text += "    allow_steps_override: \(allow)\n" }
        let undeclarable = (template.content.objectValue ?? [:]).filter { !["steps", "allow_steps_override", "auth"].contains($0.key) }
        for (key, value) in undeclarable.sorted(by: { $0.key < $1.key }) {
            text += "    # on the service, not declarable in a manifest (a sync removes it): \(key): \(value.serialized())\n"
        }
        text += "    steps:\n"
        for (step, instructions) in (template.content["steps"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            text += "      \(JSONValue.string(step).serialized()): \(instructions.serialized().replacingOccurrences(of: "$", with: "$$"))\n"
        }
        context.output.out(text)
        return ExitCode.success
    }

    private func sync(
        _ client: TemplateClient, wanted: [String: DeclaredTemplate], configuration: RunConfiguration,
        context: CommandContext
    ) async throws {
        let applied = try await TemplateSync.apply(wanted, client: client)
        for (name, result) in applied.sorted(by: { $0.key < $1.key }) {
            context.output.out("\(result.action.rawValue) \(name)  \(result.id)\n")
        }
        try configuration.workspace.recordTemplates(TemplateSync.records(of: applied, wanted: wanted), endpoint: configuration.endpointKey)
        guard arguments.flag("prune") else { return }
        for template in try await client.list() where wanted[template.name] == nil {
            try await client.delete(id: template.id)
            context.output.out("deleted \(template.name)  \(template.id)\n")
        }
        // After a prune the endpoint holds no undeclared Template, including any deleted elsewhere.
        let undeclared = Set(configuration.workspace.syncedTemplates(endpoint: configuration.endpointKey).keys).subtracting(wanted.keys)
        try configuration.workspace.recordTemplates([:], endpoint: configuration.endpointKey, removed: undeclared)
    }
}
