/// `pipeline completions SHELL`: prints a completion script for bash, zsh or fish.
struct CompletionsCommand: Command {
    static let spec = CommandSpec(
        name: "completions",
        summary: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
        Completes commands, options, the values of options that take fixed ones, files and folders where \
        an option takes them, and manifests (.yml, .yaml). 'make install' installs all three.
        """,
        arguments: [.init(name: "SHELL", help: "bash, zsh or fish.", choices: ShellCompletion.shells)],
        examples: [
            "source <(pipeline completions bash)",
            "pipeline completions zsh > \"${fpath[1]}/_pipeline\"",
            "pipeline completions fish > ~/.config/fish/completions/pipeline.fish",
        ])

    let arguments: CompletionsArguments

    init(_ arguments: CompletionsArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        CompletionsView().show(ShellCompletion.script(for: arguments.shell, commands: PipelineCLI.commands.map { $0.spec }), context: context)
        return ExitCode.success
    }
}
