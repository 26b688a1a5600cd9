import Basics
import Foundation
import Planning
import Spec

/// `pipeline policy suggest MANIFEST`: writes the narrowest policy that allows what the manifest uses.
struct PolicyCommand: Command {
    static let spec = CommandSpec(
        name: "policy",
        summary: "Write the narrowest policy that allows what a manifest uses ('suggest').",
        discussion: """
        'suggest' reads the manifest (and plans it, for the sizes) without any policy, then writes a \
        policy that allows exactly its robots, each option with the range or the values it is given, its \
        fields, Templates and notify URLs, its signature lifetime, and size limits just above the plan's: \
        commented, for a platform team to tighten and commit (see docs/manifest.md).
        """,
        arguments: [
            .init(name: "ACTION", help: "suggest", choices: ["suggest"]),
            .init(name: "MANIFEST", help: "The manifest whose needs the policy allows."),
        ],
        options: [.init(name: "out", valueName: "FILE", help: "Write the policy to FILE (default: standard output); an existing file is not replaced.")],
        examples: ["pipeline policy suggest pipeline.yml", "pipeline policy suggest pipeline.yml --out policy.yml"])

    let manifest: String
    let out: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard arguments.positionals.first == "suggest" else {
            throw UsageError("unknown action '\(arguments.positionals.first ?? "")'; the action is 'suggest'", command: Self.spec.name)
        }
        manifest = arguments.positionals[1]
        out = arguments.value("out")
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let loaded = ManifestLoader(environment: context.environment).load(path: manifest)
        guard let value = loaded.value else {
            context.report(loaded.diagnostics, sources: loaded.sources)
            return ExitCode.failure
        }
        // Planned without a policy (the one in force may be what refuses it), for the sizes only.
        let planned = Planner(policy: nil, workers: ParallelWork.cores).plan(value)
        if planned.plan == nil {
            context.output.error("pipeline: warning: the manifest could not be planned (\(planned.diagnostics.filter { $0.severity == .error }.count) errors); the policy has no size limits\n")
        }
        let text = PolicySuggestion(manifest: value, plan: planned.plan).yaml(manifestShown: (manifest as NSString).lastPathComponent)
        guard let out else {
            context.output.out(text)
            return ExitCode.success
        }
        guard !FileManager.default.fileExists(atPath: out) else {
            context.output.failure("'\(out)' exists; it is not replaced", hint: "name another file, or remove it first")
            return ExitCode.failure
        }
        do { try AtomicFile.write(Data(text.utf8), to: out) } catch {
            context.output.failure("\(error)", hint: "check that the folder of '\(out)' exists and is writable")
            return ExitCode.failure
        }
        context.output.error("pipeline: wrote \(out); point the manifest at it with 'policy: \((out as NSString).lastPathComponent)'\n")
        return ExitCode.success
    }
}
