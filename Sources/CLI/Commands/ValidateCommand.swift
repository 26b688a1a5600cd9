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
        let view: any ValidateView = arguments.json ? JSONValidateView() : HumanValidateView()
        view.show(
            manifest: arguments.manifest, diagnostics: loaded.diagnostics, sources: loaded.sources,
            valid: loaded.value.map { ($0.jobs.count, $0.jobs.reduce(0) { $0 + $1.steps.count }) }, context: context)
        return valid ? ExitCode.success : ExitCode.failure
    }
}
