/// `pipeline init`'s command line, parsed once.
struct InitArguments: CommandArguments {
    /// The project folder (default: this one).
    var directory: String
    /// `--kind`.
    var kind: ProjectTemplate.Kind
    /// `--force`: overwrite files in the way.
    var force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        directory = arguments.positionals.first ?? "."
        let name = arguments.value("kind") ?? "images"
        guard let kind = ProjectTemplate.Kind(rawValue: name) else {
            throw UsageError("--kind must be images, media or documents, not '\(name)'", command: InitCommand.spec.name)
        }
        self.kind = kind
        force = arguments.flag("force")
    }
}
