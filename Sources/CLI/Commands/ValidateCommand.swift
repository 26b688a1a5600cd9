import Basics
import Client
import Planning

/// `pipeline validate`: parse, shape and policy checks, nothing else.
struct ValidateCommand: Command {
    static let spec = CommandSpec(
        name: "validate",
        summary: "Check a manifest's syntax, shape and policy without touching any input file.",
        discussion: "Reports every problem at once, each with its file, line and column. Exits 0 when the manifest is valid, 1 otherwise.",
        arguments: [.init(name: "MANIFEST", help: "The manifest to check, such as pipeline.yml.")],
        options: [
            .init(name: "policy", valueName: "FILE", help: "Check against this policy instead of the manifest's 'policy:'."),
            .init(name: "json", help: "Print the result as JSON on standard output."),
            CommandSpec.caCertOption,
        ],
        examples: ["pipeline validate pipeline.yml", "pipeline validate pipeline.yml --policy policy.yml --json"])

    let manifest: String
    let policy: String?
    let json: Bool

    init(_ arguments: ParsedArguments) {
        manifest = arguments.positionals[0]
        policy = arguments.value("policy")
        json = arguments.flag("json")
    }

    func run(_ context: CommandContext) async -> Int32 {
        let (project, session) = await ProjectLoader(environment: context.environment, policyPath: policy, http: context.http).load(manifest)
        let loaded = session.validate(project)
        let valid = loaded.value != nil
        if json {
            context.reportJSON(loaded.diagnostics, extra: ["valid": .bool(valid), "manifest": .string(manifest)])
        } else {
            context.report(loaded.diagnostics, sources: loaded.sources)
            if let value = loaded.value {
                let steps = value.jobs.reduce(0) { $0 + $1.steps.count }
                context.output.out("\(manifest): valid (\(plural(value.jobs.count, "job")), \(plural(steps, "step")))\n")
            }
        }
        return valid ? ExitCode.success : ExitCode.failure
    }
}
