import Basics
import Client
import Foundation

/// `pipeline results merge`: combines the results files of a sharded run into one.
struct ResultsCommand: Command {
    static let spec = CommandSpec(
        name: "results",
        summary: "Work with results files: 'merge' combines the shards of one run (pipeline run --shard I/N).",
        arguments: [
            .init(name: "ACTION", help: "merge"),
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
        var shards: [RunResults] = []
        for file in files {
            guard let results = RunResults.load(file) else {
                context.output.failure("'\(file)' is not a results file written by 'pipeline run'")
                return ExitCode.failure
            }
            shards.append(results)
        }
        guard let merged = RunResults.merge(shards) else {
            context.output.failure(
                "the files are not all the shards 1/N to N/N of one pipeline", hint: "pass every shard's results, from runs with --shard 1/N ... N/N")
            return ExitCode.failure
        }
        if let out {
            try merged.write(to: out)
        } else {
            context.output.out(merged.json.serialized(pretty: true) + "\n")
        }
        return merged.assemblies.allSatisfy(\.isCompleted) ? ExitCode.success : ExitCode.failure
    }
}
