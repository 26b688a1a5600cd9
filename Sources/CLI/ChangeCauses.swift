import Client
import Basics
import Planning

/// Why a plan differs from the one the last run ran, job by job and cause by cause, in words a
/// pull request can carry: an option that changed (and what it re-processes), files added,
/// removed or changed, a job added or removed.
struct ChangeCauses {
    /// One cause: the options that changed, if that is the cause, and what it does.
    struct Cause {
        /// `+` something new, `-` something gone, `~` something changed.
        var sign: Character = "~"
        /// Such as `steps.thumb.width: 180 -> 160` (shown as code in Markdown).
        var options: String?
        /// Such as "re-processes 49 files in 10 Assemblies", or "3 new files".
        var effect: String

        /// The cause in one line of plain text.
        var text: String { options.map { "\($0) (\(effect))" } ?? effect }
    }

    /// One job's causes.
    struct Job {
        var name: String
        var causes: [Cause]
    }

    /// The jobs that changed, in plan order.
    let jobs: [Job]

    /// The most options listed for one job.
    static let listedOptions = 10

    /// The causes of `diff`; with `work` (what a run does, step by step), an option's effect is
    /// what runs of the job, each step named in the manifest's `stepOrder`.
    init(_ diff: PlanDiff, work: RunWork? = nil, stepOrder: [String: [String]] = [:]) {
        jobs = diff.jobs.compactMap { job in
            var causes: [Cause] = []
            switch job.presence {
            case .added:
                let files = job.created.reduce(0) { $0 + $1.files.count }
                causes.append(Cause(sign: "+", effect: "new job: \(plural(files, "file")) in \(plural(job.created.count, "Assembly", "Assemblies"))"))
            case .removed:
                causes.append(Cause(sign: "-", effect: "job removed: \(plural(job.removed.count, "Assembly", "Assemblies")) no longer run"))
            case .both:
                let shown = job.instructionChanges.prefix(Self.listedOptions).map { DiffRendering.describe($0) }
                if !shown.isEmpty {
                    let more = job.instructionChanges.count - shown.count
                    causes.append(Cause(
                        options: shown.joined(separator: ", ") + (more > 0 ? ", and \(more) more" : ""),
                        effect: work?.filesPerStep(job: job.job).map { Self.running($0, order: stepOrder[job.job] ?? []) } ?? Self.reprocessing(job)))
                }
                let added = job.created.reduce(0) { $0 + $1.files.count } + job.changed.reduce(0) { $0 + $1.addedFiles.count }
                let removed = job.removed.reduce(0) { $0 + $1.files.count } + job.changed.reduce(0) { $0 + $1.removedFiles.count }
                let changed = job.changed.reduce(0) { $0 + $1.changedFiles.count }
                if added > 0 { causes.append(Cause(sign: "+", effect: plural(added, "new file"))) }
                if removed > 0 { causes.append(Cause(sign: "-", effect: "\(plural(removed, "file")) removed")) }
                if changed > 0 { causes.append(Cause(effect: "\(plural(changed, "file")) with new content")) }
            }
            return causes.isEmpty ? nil : Job(name: job.job, causes: causes)
        }
    }

    /// What runs of a job cached step by step: "runs w200: 12 files; w100: cached".
    static func running(_ filesPerStep: [String: Int], order: [String]) -> String {
        filesPerStep.values.allSatisfy { $0 == 0 } ? "nothing runs, every result is cached" : "runs " + StepWork.describe(filesPerStep, order: order)
    }

    /// What a job's changed instructions re-process: "re-processes 49 files in 10 Assemblies".
    static func reprocessing(_ job: PlanDiff.JobDiff) -> String {
        "re-processes \(plural(job.changed.reduce(0) { $0 + $1.new.files.count }, "file")) in \(plural(job.changed.count, "Assembly", "Assemblies"))"
    }

    /// The first few causes with their jobs, for a one-line headline, and how many more there are.
    var leading: (causes: [(job: String, cause: Cause)], more: Int) {
        let all = jobs.flatMap { job in job.causes.map { (job: job.name, cause: $0) } }
        return (Array(all.prefix(3)), max(0, all.count - 3))
    }

    /// The replaced Assemblies of `diff`: the old ids of those it pairs with a new version.
    static func replaced(in diff: PlanDiff?) -> Set<String> {
        Set(diff?.jobs.flatMap { $0.changed.map(\.old.id) } ?? [])
    }
}
