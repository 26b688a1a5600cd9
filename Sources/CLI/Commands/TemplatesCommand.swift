import APIClients
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
            .init(name: "prune", help: "With sync: delete the Templates this manifest made (or adopted) and no longer declares; asks first on a terminal."),
            .init(name: "yes", help: "With --prune: delete without asking (for CI, where nothing can be asked)."),
            CommandSpec.caCertOption,
        ],
        examples: ["pipeline templates list pipeline.yml", "pipeline templates pull pipeline.yml site-thumbs", "pipeline templates sync pipeline.yml"])

    let arguments: TemplatesArguments

    init(_ arguments: TemplatesArguments) {
        self.arguments = arguments
    }

    /// How the command speaks.
    private var view: TemplatesView { TemplatesView(manifestPath: arguments.manifestPath) }

    func run(_ context: CommandContext) async throws -> Int32 {
        let loaded = ManifestLoader(environment: context.environment).load(path: arguments.manifestPath)
        context.report(loaded.diagnostics, sources: loaded.sources)
        guard let manifest = loaded.value else { return ExitCode.failure }
        let prepared: RunSetup
        do {
            prepared = try RunSetup.prepare(manifest: manifest, workspace: Workspace(manifest: manifest), endpoint: Endpoint.of(manifest, override: arguments.endpoint, environment: context.environment), context: context)
        } catch {
            context.report(error.diagnostics, sources: loaded.sources)
            return ExitCode.failure
        }
        defer { prepared.engine?.stop() }
        let configuration = prepared.configuration
        let client = TemplateClient(configuration: configuration, http: context.http)
        let wanted = TemplateSync.wanted(in: manifest)
        do {
            switch arguments.action {
            case .list: try await list(client, wanted: wanted, context: context)
            case .pull(let name): return try await pull(name, client, context: context)
            case .sync(let prune, let yes): try await sync(client, wanted: wanted, prune: prune, yes: yes, configuration: configuration, context: context)
            }
        } catch {
            view.failure(error, context: context)
            return ExitCode.failure
        }
        return ExitCode.success
    }

    private func list(_ client: TemplateClient, wanted: [String: DeclaredTemplate], context: CommandContext) async throws {
        view.list(TemplateComparison.compare(wanted, remote: try await client.list()), context: context)
    }

    private func pull(_ name: String, _ client: TemplateClient, context: CommandContext) async throws -> Int32 {
        guard let template = try await client.list().first(where: { $0.name == name }) else {
            view.noTemplate(named: name, context: context)
            return ExitCode.failure
        }
        view.pulled(template, context: context)
        return ExitCode.success
    }

    /// Whether the Templates may be deleted: `--yes`, or a "y" typed at the terminal's question.
    private func confirmDeleting(_ templates: [RemoteTemplate], yes: Bool, context: CommandContext) throws -> Bool {
        if yes { return true }
        let names = templates.map { "  \($0.name)  \($0.id)\n" }.joined()
        guard isatty(STDIN_FILENO) == 1 else {
            view.wouldDelete(names, context: context)
            throw PruneRefused(message: "nothing can be asked here (no terminal): pass --yes to delete these \(plural(templates.count, "Template"))")
        }
        view.askToDelete(names, count: templates.count, context: context)
        let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        return answer == "y" || answer == "yes"
    }

    /// A prune that was not confirmed.
    struct PruneRefused: Error, CustomStringConvertible {
        var message = "nothing was deleted"
        var description: String { message }
    }

    private func sync(
        _ client: TemplateClient, wanted: [String: DeclaredTemplate], prune: Bool, yes: Bool, configuration: RunConfiguration,
        context: CommandContext
    ) async throws {
        // What this manifest made or adopted before this sync: the only Templates a prune may delete.
        let own = try configuration.workspace.syncedTemplates(endpoint: configuration.endpointKey)
        let applied = try await TemplateSync.apply(wanted, client: client)
        for (name, result) in applied.sorted(by: { $0.key < $1.key }) {
            view.synced(name, action: result.action.rawValue, id: result.id, context: context)
        }
        try configuration.workspace.recordTemplates(TemplateSync.records(of: applied, wanted: wanted), endpoint: configuration.endpointKey)
        guard prune else { return }
        let undeclared = try await client.list().filter { wanted[$0.name] == nil }
        // The state says what this manifest made, but state is input (a cache, a commit): the
        // account must agree. Only a Template whose name, id and content are as this manifest
        // last synced them is its own; one that changed since is someone else's now, and so is
        // one another manifest of the project records too.
        let elsewhere = try configuration.workspace.templatesClaimedElsewhere(endpoint: configuration.endpointKey)
        let doomed = undeclared.filter { template in
            !elsewhere.contains(template.id) && own[template.name].map {
                $0.id == template.id && $0.contentSHA256 == SyncedTemplate(id: template.id, remote: template).contentSHA256
            } ?? false
        }
        let others = undeclared.count - doomed.count
        if others > 0 {
            view.leaving(others, context: context)
        }
        if !doomed.isEmpty {
            guard try confirmDeleting(doomed, yes: yes, context: context) else { throw PruneRefused() }
            for template in doomed {
                try await client.delete(id: template.id)
                view.deleted(template, context: context)
            }
        }
        // After a prune the endpoint holds none of this manifest's undeclared Templates, including any deleted elsewhere.
        let forgotten = Set(try configuration.workspace.syncedTemplates(endpoint: configuration.endpointKey).keys).subtracting(wanted.keys)
        try configuration.workspace.recordTemplates([:], endpoint: configuration.endpointKey, removed: forgotten)
    }
}
