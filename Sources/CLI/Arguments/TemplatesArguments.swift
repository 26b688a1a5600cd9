/// `pipeline templates`'s command line, parsed once.
struct TemplatesArguments: CommandArguments {
    /// What the command does with the manifest's Templates.
    enum Action: Sendable, Equatable {
        /// Every Template of the endpoint against the manifest's.
        case list
        /// One Template of the endpoint as manifest YAML.
        case pull(name: String)
        /// Create or update the manifest's Templates; `--prune` deletes those it no longer declares, `--yes` without asking.
        case sync(prune: Bool, yes: Bool)
    }

    /// The action and what goes with it.
    var action: Action
    /// The manifest.
    var manifestPath: String
    /// `--endpoint`.
    var endpoint: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let command = TemplatesCommand.spec.name
        let word = arguments.positionals[0]
        guard ["list", "pull", "sync"].contains(word) else {
            throw UsageError("ACTION must be list, pull or sync, not '\(word)'", command: command)
        }
        guard arguments.positionals.count > 1 else { throw UsageError("missing MANIFEST", command: command) }
        manifestPath = arguments.positionals[1]
        let name = arguments.positionals.count > 2 ? arguments.positionals[2] : nil
        if word == "pull", name == nil { throw UsageError("pull needs the Template's NAME", command: command) }
        if word != "pull", let extra = name { throw UsageError("\(word) takes only MANIFEST, not '\(extra)'", command: command) }
        if arguments.positionals.count > 3 { throw UsageError("too many arguments: '\(arguments.positionals[3])'", command: command) }
        let (prune, yes) = (arguments.flag("prune"), arguments.flag("yes"))
        if prune, word != "sync" { throw UsageError("--prune goes with sync", command: command) }
        if yes, !prune { throw UsageError("--yes goes with --prune", command: command) }
        endpoint = arguments.value("endpoint")
        switch (word, name) {
        case ("pull", let name?): action = .pull(name: name)
        case ("list", _): action = .list
        default: action = .sync(prune: prune, yes: yes)
        }
    }
}
