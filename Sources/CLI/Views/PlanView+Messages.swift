import Basics
import Planning

/// What `plan` says on standard error whatever its format: the shard, a budget exceeded, an
/// `--out` that cannot be written, and Templates that could not be compared.
extension PlanView {
    /// For `--shard auto`: which variables the shard came from.
    func shard(_ origin: String, context: CommandContext) {
        context.output.error("pipeline: \(origin)\n")
    }

    /// The run would count more than `--max-bytes`.
    func overMaxBytes(_ usage: UsageReport, maxBytes: Int64, plan: Plan, context: CommandContext) {
        context.output.failure(
            "the run would count about \(ByteSize(bytes: usage.countedBytes.bytes)), more than --max-bytes \(ByteSize(bytes: maxBytes))",
            hint: "check the inputs' globs (\(plural(plan.fileCount, "file")), \(ByteSize(bytes: plan.byteCount)) in), or raise --max-bytes")
    }

    /// `--out` names the manifest itself.
    func outIsTheManifest(_ out: String, context: CommandContext) {
        context.output.failure("--out '\(out)' is the manifest itself; the plan would replace it", hint: "name another file, such as plan.json")
    }

    /// `--out` names a folder.
    func outIsAFolder(_ out: String, context: CommandContext) {
        context.output.failure("--out '\(out)' is a folder", hint: "name a file for the plan, such as '\(out)/plan.json'")
    }

    /// The plan could not be written to `--out`.
    func outNotWritten(_ error: any Error, out: String, context: CommandContext) {
        context.output.failure("\(error)", hint: "check that the folder of '\(out)' exists and is writable")
    }

    /// The last sync's record cannot be read.
    func syncedUnreadable(_ error: any Error, context: CommandContext) {
        context.output.error("pipeline: warning: \(error); the plan shows no Template as synced\n")
    }

    /// The endpoint could not be asked for its Templates.
    func templatesNotCompared(with endpoint: String, reason: String, context: CommandContext) {
        context.output.error("pipeline: warning: Templates not compared with \(endpoint): \(reason)\n")
    }
}
