import Basics
import Client
import Foundation
import Planning

/// A plan's usage estimate (of what runs: the Assemblies a run would make) with what only this machine can add: the output each job made per
/// input byte on the last run (measured), the media duration of audio and video inputs
/// (ffprobe, where it is installed), and the bytes a metered service counts (input plus output).
struct UsageReport {
    let estimate: UsageEstimate
    /// Estimated output bytes by job, at the ratios the last run measured; absent for a job
    /// (or a step of it) the last run did not measure.
    let outputs: [String: Int64]
    /// Seconds of audio and video by job; `nil` for a job with media whose length is unknown.
    let durations: [String: Double?]

    /// `resolve` turns a plan's file path into one ffprobe can open.
    init(_ plan: Plan, lastResults: RunResults?, resolve: (String) -> String = { $0 }, probe: (String) -> Double? = UsageReport.duration) {
        estimate = UsageEstimate(plan)
        let ratios = OutputRatios(lastResults)
        var outputs: [String: Int64?] = [:]
        for assembly in plan.assemblies {
            let known = outputs[assembly.job] ?? 0
            let made = ratios.output(of: assembly)
            outputs[assembly.job] = known.flatMap { total in made.map { total + $0 } }
        }
        self.outputs = outputs.compactMapValues { $0 }
        var durations: [String: Double?] = [:]
        for assembly in plan.assemblies {
            for file in assembly.files where MediaTypes.isAudioOrVideo(file.path) {
                let known = durations[assembly.job] ?? 0
                let length = probe(resolve(file.path))
                durations[assembly.job] = known.flatMap { total in length.map { total + $0 } }
            }
        }
        self.durations = durations
    }

    /// Estimated output bytes of a job, when the last run measured it.
    func outputBytes(_ job: UsageEstimate.Job) -> Int64? { outputs[job.name] }

    /// Input plus estimated output over every job; `measured` says whether every job's output was measured.
    var countedBytes: (bytes: Int64, measured: Bool) {
        var total: Int64 = 0, measured = true
        for job in estimate.jobs {
            total += job.bytes
            if let output = outputBytes(job) { total += output } else { measured = false }
        }
        return (total, measured)
    }

    /// Lines for the text plan.
    var text: String {
        guard !estimate.jobs.isEmpty else { return "Usage estimate: nothing runs, every result is cached.\n" }
        var lines: [String] = []
        for job in estimate.jobs {
            lines.append("  \(job.name.printable): \(describe(job))")
        }
        let counted = countedBytes
        lines.append("  counted by a metered service: about \(ByteSize(bytes: counted.bytes))"
            + (counted.measured ? " (input, and output at the last run's ratio)" : " (input, and output where the last run measured it)"))
        return "Usage estimate:\n" + lines.joined(separator: "\n") + "\n"
    }

    /// One job in words: bytes in, robot executions, output, media duration.
    func describe(_ job: UsageEstimate.Job) -> String {
        var parts = ["\(plural(job.files, "file")), \(ByteSize(bytes: job.bytes)) in"]
        if let executions = job.executions {
            let total = executions.values.reduce(0, +)
            let robots = executions.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            parts.append("\(plural(total, "robot execution")) (\(robots))")
        } else {
            parts.append("robot executions unknown (a Template by id)")
        }
        parts.append(outputBytes(job).map { "about \(ByteSize(bytes: $0)) out (measured on the last run)" } ?? "output unknown until a run measures it")
        if let duration = durations[job.name] {
            parts.append(duration.map { "\(DurationText.format(.seconds(Int64($0.rounded(.up))))) of media" } ?? "media duration unknown")
        }
        return parts.joined(separator: "; ")
    }

    /// A media file's length in seconds from ffprobe; `nil` without ffprobe or when it cannot tell.
    static func duration(_ path: String) -> Double? {
        guard let outcome = try? ChildProcess.runBlocking(  // no ffprobe: the duration is unknown, which the estimate says
            ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", path], timeout: .seconds(20)),
            outcome.status == 0 else { return nil }
        return Double(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The estimate as a Markdown table, job by job, with what is measured and what estimated.
    var markdown: String {
        guard !estimate.jobs.isEmpty else { return "**Usage estimate:** nothing runs, every result is cached.\n\n" }
        var text = "**Usage estimate**\n\n| job | in | robot executions | out | media |\n| --- | ---: | --- | ---: | ---: |\n"
        for job in estimate.jobs {
            let executions = job.executions.map { counts in
                counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.value) \(MarkupText.codeSpan($0.key, inTable: true))" }.joined(separator: ", ")
            } ?? "unknown (a Template by id)"
            let out = outputBytes(job).map { "\(ByteSize(bytes: $0)) (measured)" } ?? "unknown"
            let media = durations[job.name].map { $0.map { DurationText.format(.seconds(Int64($0.rounded(.up)))) } ?? "unknown" } ?? "none"
            text += "| \(MarkupText.markdown(job.name)) | \(plural(job.files, "file")), \(ByteSize(bytes: job.bytes)) | \(executions) | \(out) | \(media) |\n"
        }
        let counted = countedBytes
        text += "\nA metered service counts about **\(ByteSize(bytes: counted.bytes))** (input, and output "
            + (counted.measured ? "at the last run's measured ratio" : "where the last run measured it") + ").\n\n"
        return text
    }

    /// The summary of a plan refused for its size.
    func markdownOverBudget(_ limit: Int64) -> String {
        "### Plan over budget\n\nThe run would count about **\(ByteSize(bytes: countedBytes.bytes))**, more than the \(ByteSize(bytes: limit)) allowed.\n\n" + markdown
    }
}
