import Basics
import Client
import Planning
import Spec

/// `pipeline validate`: parse, shape and policy checks, nothing else.
struct ValidateCommand: Command {
    static let spec = CommandSpec(
        name: "validate",
        summary: "Check a manifest's syntax, shape and policy without touching any input file.",
        discussion: "Reports every problem of shape, robots and policy at once, each with its file, line and column; an error in the YAML itself (its syntax, a duplicate key) is reported alone, as nothing can be read past it. Exits 0 when the manifest is valid, 1 otherwise.",
        arguments: [.init(name: "MANIFEST", help: "The manifest to check, such as pipeline.yml.")],
        options: [
            .init(name: "policy", valueName: "FILE", help: "Check against this policy instead of the manifest's 'policy:'."),
            .init(name: "json", help: "Print the result as JSON on standard output."),
            .init(name: "endpoint", valueName: "URL", help: "Check for this endpoint instead of the manifest's ('local' checks what the local engine implements)."),
            CommandSpec.caCertOption,
        ],
        examples: ["pipeline validate pipeline.yml", "pipeline validate pipeline.yml --policy policy.yml --json"])

    let arguments: ValidateArguments

    init(_ arguments: ValidateArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async -> Int32 {
        let loader = ProjectLoader(environment: context.environment, policyPath: arguments.policy, endpointOverride: arguments.endpoint, http: context.http)
        let (project, session) = await loader.load(arguments.manifest)
        let loaded = session.validate(project)
        let valid = loaded.value != nil
        if arguments.json {
            context.reportJSON(loaded.diagnostics, extra: ["valid": .bool(valid), "manifest": .string(arguments.manifest)])
        } else {
            context.report(loaded.diagnostics, sources: loaded.sources)
            if let value = loaded.value {
                let steps = value.jobs.reduce(0) { $0 + $1.steps.count }
                context.output.out("\(arguments.manifest): valid (\(plural(value.jobs.count, "job")), \(plural(steps, "step")))\n")
            }
        }
        return valid ? ExitCode.success : ExitCode.failure
    }
}
