import Basics
import Foundation
import Planning
import Spec

/// `pipeline policy suggest MANIFEST`: writes a policy that allows what the manifest declares, with room to grow.
struct PolicyCommand: Command {
    static let spec = CommandSpec(
        name: "policy",
        summary: "Write a policy that allows what a manifest uses, with room ('suggest').",
        discussion: """
        'suggest' reads the manifest (and plans it, for the sizes) without any policy, then writes a \
        policy that allows its robots, each option with the values it takes or a range around the \
        numbers given, its fields, Templates and notify URLs, its signature lifetime, files per \
        Assembly from its batch sizes, and file, Assembly and run sizes with a margin above the plan's \
        (--margin, 4x by default): commented, for a platform team to tighten and commit (see \
        docs/manifest.md).
        """,
        arguments: [
            .init(name: "ACTION", help: "suggest", choices: ["suggest"]),
            .init(name: "MANIFEST", help: "The manifest whose needs the policy allows."),
        ],
        options: [
            .init(name: "out", valueName: "FILE", help: "Write the policy to FILE (default: standard output); an existing file is not replaced."),
            .init(name: "margin", valueName: "FACTOR", help: "Room above today's sizes and numbers, such as 2x (default 4x)."),
        ],
        examples: ["pipeline policy suggest pipeline.yml", "pipeline policy suggest pipeline.yml --out policy.yml --margin 10x"])

    let arguments: PolicyArguments

    init(_ arguments: PolicyArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let view = PolicyView()
        let loaded = ManifestLoader(environment: context.environment).load(path: arguments.manifest)
        guard let value = loaded.value else {
            context.report(loaded.diagnostics, sources: loaded.sources)
            return ExitCode.failure
        }
        // Planned without a policy (the one in force may be what refuses it), for the sizes only.
        let planned = Planner(policy: nil, workers: ParallelWork.cores).plan(value)
        if planned.plan == nil {
            view.unplanned(errors: planned.diagnostics.filter { $0.severity == .error }.count, context: context)
        }
        let text = PolicySuggestion(manifest: value, plan: planned.plan, margin: arguments.margin).yaml(manifestShown: (arguments.manifest as NSString).lastPathComponent)
        guard let out = arguments.out else {
            view.show(text, context: context)
            return ExitCode.success
        }
        guard !FileManager.default.fileExists(atPath: out) else {
            view.exists(out, context: context)
            return ExitCode.failure
        }
        do { try AtomicFile.write(Data(text.utf8), to: out) } catch {
            view.notWritten(error, out: out, context: context)
            return ExitCode.failure
        }
        view.wrote(out, advice: PolicyReference(manifest: value, written: out).advice, context: context)
        return ExitCode.success
    }
}
