/// `pipeline completions`'s command line, parsed once.
struct CompletionsArguments: CommandArguments {
    /// bash, zsh or fish.
    var shell: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let shell = arguments.positionals.first else { throw UsageError("missing SHELL: bash, zsh or fish", command: CompletionsCommand.spec.name) }
        guard ShellCompletion.shells.contains(shell), arguments.positionals.count == 1 else {
            throw UsageError("SHELL must be bash, zsh or fish, not '\(arguments.positionals.joined(separator: " "))'", command: CompletionsCommand.spec.name)
        }
        self.shell = shell
    }
}
