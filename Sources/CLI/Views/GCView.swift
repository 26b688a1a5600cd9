import Basics
import Engine

/// What `gc` says: what it removed (or, with `--dry-run`, would remove), what it kept, and why
/// it could not collect.
struct GCView: Sendable {
    /// `--dry-run`: said as what would be removed.
    let dryRun: Bool

    private var verb: String { dryRun ? "Would remove" : "Removed" }

    /// The state cannot be read (links) or the engine's references cannot be gathered.
    func failure(_ message: String, hint: String, context: CommandContext) {
        context.output.failure(message, hint: hint)
    }

    /// The engine's data cannot be collected.
    func engineBusy(_ error: any Error, context: CommandContext) {
        context.output.failure("the engine's data cannot be collected: \(error)", hint: "wait for the pipeline command or pipeline serve using it to end")
    }

    /// gc waits for another engine to leave the folder.
    func waiting(for folder: String, upTo wait: Duration, output: Output) {
        output.error("pipeline: waiting for \(folder.printable), in use by another pipeline command or a pipeline serve (up to \(wait.components.seconds) s)\n")
    }

    /// What was collected of the engine's data.
    func collected(_ garbage: CollectedGarbage, context: CommandContext) {
        let what = GarbageText.removed(assemblies: garbage.assemblies, uploads: garbage.uploads, results: garbage.results)
        context.output.out("\(verb) \(what) that no results name (\(ByteSize(bytes: garbage.bytes))); kept \(plural(garbage.kept, "Assembly", "Assemblies")).\n")
    }

    /// There is no engine data folder.
    func noEngine(_ folder: String, context: CommandContext) {
        context.output.out("Nothing to collect: \(HumanRunView.shown(folder)) does not exist.\n")
    }

    /// Downloads removed from folders no job downloads into.
    func downloads(_ files: Int, bytes: Int64, context: CommandContext) {
        context.output.out("\(verb) \(plural(files, "download")) from folders no job downloads into (\(ByteSize(bytes: bytes))).\n")
    }

    /// The state of a manifest no longer here is kept.
    func keptForGoneManifest(_ gone: String, context: CommandContext) {
        context.output.out("Kept for \(gone.printable), a manifest no longer here: remove .pipeline/manifests/\(gone.printable)/ if it is gone for good, then run gc again.\n")
    }
}
