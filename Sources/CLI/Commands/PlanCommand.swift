import Basics
import Client
import Foundation
import Planning
import Spec

/// `pipeline plan`: what `run` would do, as a summary and optionally as JSON.
struct PlanCommand: Command {
    static let spec = CommandSpec(
        name: "plan",
        summary: "Show which Assemblies a manifest would create, with every file's size and SHA-256.",
        discussion: """
        Expands the inputs, hashes each file, batches files into Assemblies and checks them against the \
        policy. The plan is deterministic: planning unchanged input gives byte-identical JSON, so it can be \
        committed, reviewed and compared with 'pipeline diff'.
        """,
        arguments: [.init(name: "MANIFEST", help: "The manifest to plan, such as pipeline.yml.")],
        options: [
            .init(name: "out", valueName: "FILE", help: "Write the plan as JSON to FILE."),
            .init(name: "json", help: "Print the plan as JSON on standard output instead of the summary."),
            .init(name: "policy", valueName: "FILE", help: "Check against this policy instead of the manifest's 'policy:'."),
            CommandSpec.caCertOption,
        ],
        examples: ["pipeline plan pipeline.yml", "pipeline plan pipeline.yml --out plan.json"])

    let manifest: String
    let out: String?
    let json: Bool
    let policy: String?

    init(_ arguments: ParsedArguments) {
        manifest = arguments.positionals[0]
        out = arguments.value("out")
        json = arguments.flag("json")
        policy = arguments.value("policy")
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let (project, session) = await ProjectLoader(environment: context.environment, policyPath: policy).load(manifest)
        let loaded = session.plan(project, workers: ProcessInfo.processInfo.activeProcessorCount)
        guard let plan = loaded.value else {
            if json {
                context.reportJSON(loaded.diagnostics)
            } else {
                context.report(loaded.diagnostics, sources: loaded.sources)
            }
            return ExitCode.failure
        }
        context.report(loaded.diagnostics, sources: loaded.sources)
        let text = plan.json.serialized(pretty: true) + "\n"
        if let out {
            do {
                try AtomicFile.write(Data(text.utf8), to: out)
            } catch {
                context.output.failure("\(error)", hint: "check that the folder of '\(out)' exists and is writable")
                return ExitCode.failure
            }
        }
        if json {
            context.output.out(text)
        } else {
            let last = project.value.map { Workspace(manifest: $0.manifest) }?.lastResults()
            let cached = Set((last?.assemblies ?? []).filter(\.isCompleted).map(\.planID))
            context.output.out(PlanSummary.render(plan, cached: cached))
            if let manifest = project.value?.manifest, let templates = Self.templates(manifest, environment: context.environment) {
                context.output.out(templates)
            }
            if let out { context.output.out("Wrote \(out).\n") }
        }
        return ExitCode.success
    }

    /// The manifest's Templates against what the last run or sync left on the endpoint:
    /// '+' never synced there, '~' changed since, '=' the same, '-' synced but no longer declared.
    /// Nil when there is neither a declared nor a synced Template.
    private static func templates(_ manifest: Manifest, environment: [String: String]) -> String? {
        let endpoint = RunSetup.withoutCredentials(RunSetup.endpointName(manifest, override: nil, environment: environment))
        let synced = Workspace(manifest: manifest).syncedTemplates(endpoint: endpoint)
        guard !manifest.templates.isEmpty || !synced.isEmpty else { return nil }
        var text = "\nTemplates (against the last sync to \(endpoint)):\n"
        for template in manifest.templates.sorted(by: { $0.name.value < $1.name.value }) {
            let digest = SyncedTemplate.digest(content: template.content, requireSignatureAuth: template.requireSignatureAuth)
            switch synced[template.name.value] {
            case nil: text += "  + template \(template.name.value)  to create\n"
            case let last? where last.contentSHA256 != digest: text += "  ~ template \(template.name.value)  to update (\(last.id))\n"
            case let last?: text += "  = template \(template.name.value)  unchanged (\(last.id))\n"
            }
        }
        let declared = Set(manifest.templates.map(\.name.value))
        for (name, last) in synced.sorted(by: { $0.key < $1.key }) where !declared.contains(name) {
            text += "  - template \(name)  no longer declared; still on the endpoint (\(last.id)) until `pipeline templates sync --prune`\n"
        }
        return text
    }
}
