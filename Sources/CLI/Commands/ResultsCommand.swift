import Basics
import Client
import Foundation

/// `pipeline results merge`: combines the results files of a sharded run into one.
struct ResultsCommand: Command {
    static let spec = CommandSpec(
        name: "results",
        summary: "Work with results files: 'merge' combines the shards of one run (pipeline run --shard I/N).",
        arguments: [
            .init(name: "ACTION", help: "merge", choices: ["merge"]),
            .init(name: "FILE", help: "The shards' results files, in any order.", variadic: true),
        ],
        options: [.init(name: "out", valueName: "FILE", help: "Where to write the merged results (default: standard output).")],
        examples: ["pipeline results merge shard-1.json shard-2.json --out results.json"])

    let files: [String]
    let out: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard arguments.positionals.first == "merge" else {
            throw UsageError("unknown action '\(arguments.positionals.first ?? "")'; the action is 'merge'", command: Self.spec.name)
        }
        files = Array(arguments.positionals.dropFirst())
        guard !files.isEmpty else { throw UsageError("missing FILE...", command: Self.spec.name) }
        out = arguments.value("out")
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let completed: Bool
        do {
            if let out {
                var merged = false
                try AtomicFile.write(to: out) { emit in merged = try ResultsMerge.merge(files, emit: emit) }
                completed = merged
            } else {
                completed = try ResultsMerge.merge(files) { context.output.out(String(decoding: $0, as: UTF8.self)) }
            }
        } catch let failure as ResultsMerge.Failure {
            context.output.failure(failure.description, hint: failure.hint)
            return ExitCode.failure
        } catch {
            context.output.failure("\(error)", hint: "check that the folder of '\(out ?? "")' exists and is writable")
            return ExitCode.failure
        }
        return completed ? ExitCode.success : ExitCode.failure
    }
}
