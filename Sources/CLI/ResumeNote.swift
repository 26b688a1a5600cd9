import Basics
import Client
import Wire

/// What a run cut short by Ctrl-C says about running it again: with `--force`, that it starts
/// over; on the embedded engine, which stops with the command and loses what it was processing,
/// which Assemblies start over from the beginning and why; elsewhere they go on and are resumed.
enum ResumeNote {
    /// The sentence after "state is saved in ...", for the run's `results` (nil when none came back).
    static func text(_ results: RunResults?, force: Bool, embedded: Bool) -> String {
        if force { return "Run it again without --force to resume (with --force it starts over)." }
        guard embedded else { return "Run the same command again to resume." }
        guard let results else {
            return "Run the same command again to resume; what the embedded engine was still processing starts over from the beginning, as the engine stops with this command."
        }
        let cut = results.assemblies.filter { $0.status == APIErrorCode.interrupted.rawValue && $0.assemblyID != nil }
        guard !cut.isEmpty else { return "Run the same command again to resume." }
        let completed = results.assemblies.filter(\.isCompleted).count
        let named = cut.prefix(3).map { "\($0.job) \($0.planID.prefix(12))" }.joined(separator: ", ") + (cut.count > 3 ? " and \(cut.count - 3) more" : "")
        return "Run the same command again to resume: \(completed) completed \(completed == 1 ? "is" : "are") kept, but "
            + "\(plural(cut.count, "Assembly", "Assemblies")) the embedded engine was processing (\(named)) "
            + "start\(cut.count == 1 ? "s" : "") over from the beginning, as the engine stops with this command and its work in progress is lost."
    }
}
