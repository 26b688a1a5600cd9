import Basics
import Foundation
import HTTPClient
import Wire

/// The `pipeline` command line: finds the command, parses its arguments and runs it.
public enum PipelineCLI {
    /// The tool's version.
    public static let version = ClientIdentity.version
    /// When this version was made (the manual page's date).
    public static let versionDate = ClientIdentity.versionDate

    static let commands: [any Command.Type] = [InitCommand.self, ValidateCommand.self, PlanCommand.self, DiffCommand.self, RunCommand.self, RobotsCommand.self, TemplatesCommand.self, ResultsCommand.self, PolicyCommand.self, ReportCommand.self, StatusCommand.self, ReplayCommand.self, NotifyCommand.self, CancelCommand.self, GCCommand.self, UploadCommand.self, SignCommand.self, SignURLCommand.self, ServeCommand.self, SignerCommand.self, CompletionsCommand.self]

    /// Runs the tool with `arguments` (without the program name) and returns the exit code.
    public static func run(_ arguments: [String], environment: [String: String], output: Output) async -> Int32 {
        var arguments = arguments
        switch TerminalColors.take(from: &arguments) {
        case .success(let choice):
            output.useColors(
                out: TerminalColors.enabled(choice, terminal: output.terminals.out, environment: environment),
                error: TerminalColors.enabled(choice, terminal: output.terminals.error, environment: environment))
        case .failure(let error):
            return usage(error, specs: commands.map { $0.spec }, output: output)
        }
        let status = await dispatch(arguments, environment: environment, output: output)
        guard let failure = output.writeFailure else { return status }
        ToolView(output: output).writeFailed(failure)
        return status == ExitCode.success ? ExitCode.failure : status
    }

    /// The tool's own options, before any command.
    static let toolOptions = ["help", "version"]

    /// An unknown first word: a command, or one of the tool's options, with the nearest one named.
    private static func unknown(_ word: String, specs: [CommandSpec]) -> UsageError {
        if word.hasPrefix("-") {
            let name = String(word.drop { $0 == "-" })
            let hint = Suggestions.closestOption(name, in: toolOptions).map { " (did you mean '--\($0)'?)" } ?? ""
            return UsageError("unknown option '\(word.printable)'\(hint); options of a command come after it", command: nil)
        }
        let hint = Suggestions.closest(to: word, in: specs.map(\.name) + ["help"]).map { " (did you mean '\($0)'?)" } ?? ""
        return UsageError("unknown command '\(word.printable)'\(hint)", command: nil)
    }

    private static func dispatch(_ arguments: [String], environment: [String: String], output: Output) async -> Int32 {
        // Every command's spec is built only where all are shown: the robots command's names the
        // whole bundled catalog, which other commands need not parse to start.
        func specs() -> [CommandSpec] { commands.map { $0.spec } }
        let view = ToolView(output: output)
        guard let first = arguments.first else {
            view.helpForNoCommand(HelpText.tool(specs()))
            return ExitCode.usage
        }
        switch first {
        case "--help", "-h":
            view.help(HelpText.tool(specs()))
            return ExitCode.success
        case "--version":
            view.version(version)
            return ExitCode.success
        case "help" where arguments.dropFirst().first == "--man":
            view.manual(ManualPage.render(specs(), version: version))
            return ExitCode.success
        case "help":
            guard let name = arguments.dropFirst().first, !["--help", "-h"].contains(name) else {
                view.help(HelpText.tool(specs()))
                return ExitCode.success
            }
            guard let command = commands.first(where: { $0.spec.name == name }) else {
                return usage(unknown(name, specs: specs()), specs: specs(), output: output)
            }
            view.help(HelpText.command(command.spec))
            return ExitCode.success
        default:
            break
        }
        guard let command = commands.first(where: { $0.spec.name == first }) else {
            return usage(unknown(first, specs: specs()), specs: specs(), output: output)
        }
        do {
            var parsed = try ParsedArguments.parse(Array(arguments.dropFirst()), for: command.spec)
            parsed.environment = environment
            if let found = parsed.foundManifest, !parsed.wantsHelp { view.usingManifest(found) }
            if parsed.wantsHelp {
                view.help(HelpText.command(command.spec))
                return ExitCode.success
            }
            // One client per command, trusting the environment's CAs and --ca-cert's, for all its requests.
            let http = HTTPClient(trust: try trust(parsed, environment: environment, command: command.spec.name))
            let context = CommandContext(environment: environment, output: output, http: http)
            return try await command.parsing(parsed).run(context)
        } catch let error as UsageError {
            return usage(error, specs: specs(), output: output)
        } catch {
            view.failure(error)
            return ExitCode.failure
        }
    }

    /// The CAs to trust: the system's, the environment's variables' and `--ca-cert`'s, together.
    private static func trust(_ arguments: ParsedArguments, environment: [String: String], command: String) throws(UsageError) -> TLSTrust {
        var trust = TLSTrust.fromEnvironment(environment)
        if let file = arguments.caCertFile {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw UsageError("cannot read the CA certificate file '\(file)' given to --ca-cert", command: command)
            }
            trust.caFiles.append(file)
        }
        return trust
    }

    private static func usage(_ error: UsageError, specs: [CommandSpec], output: Output) -> Int32 {
        ToolView(output: output).usage(error, spec: error.command.flatMap { name in specs.first { $0.name == name } })
        return ExitCode.usage
    }
}

/// What every command gets: the environment and where to write.
struct CommandContext {
    var environment: [String: String]
    var output: Output
    /// The command's one HTTP client (its connection pool and network thread).
    var http: HTTPClient
}

/// One subcommand: its spec (help, manual page, completions), its typed arguments and its run.
protocol Command: Sendable {
    /// The command's command line, parsed once (`Arguments/`).
    associatedtype Arguments: CommandArguments
    static var spec: CommandSpec { get }
    /// The command for its typed arguments: nothing below reads the command line.
    init(_ arguments: Arguments)
    func run(_ context: CommandContext) async throws -> Int32
}

extension Command {
    /// The command for a command line checked against its spec.
    static func parsing(_ parsed: ParsedArguments) throws(UsageError) -> Self {
        Self(try Arguments(parsed))
    }
}
