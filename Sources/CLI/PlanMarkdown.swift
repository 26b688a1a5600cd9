import Basics
import Client
import Crypto
import Planning

/// A plan as Markdown for a pull-request comment or `$GITHUB_STEP_SUMMARY`: per job what runs
/// and what the last run already did, the Assemblies to process, what left the plan, warnings.
enum PlanMarkdown {
    /// How many Assemblies the folded list shows.
    static let listed = 50

    /// `work` says what a run would do and take from the last results; `gone` what it ran that the plan no
    /// longer has (job, plan id); `previous` the files the last run had, by path; `changes` this
    /// plan next to the one the last run ran, which says why Assemblies change.
    static func render(
        _ plan: Plan, work: RunWork?, gone: [(job: String, planID: String)], previous: [ExactName: SHA256Digest] = [:],
        changes: PlanDiff? = nil, usage: UsageReport? = nil, stepOrder: [String: [String]] = [:], warnings: [Diagnostic], templates: String?
    ) -> String {
        let cached = work?.cachedIDs ?? []
        let process = plan.assemblies.filter { !cached.contains($0.id) }
        var text = "### Plan for \(MarkupText.codeSpan(plan.pipeline)) (\(MarkupText.codeSpan(plan.manifest)))\n\n"
        let causes = changes.map { ChangeCauses($0, work: work, stepOrder: stepOrder) }
        if let causes {
            let (leading, more) = causes.leading
            let shown = leading.map { "\(MarkupText.codeSpan($0.job)): \(markdown($0.cause))" }.joined(separator: "; ")
            text += "**Since the last run:** " + (leading.isEmpty ? "no changes" : shown + (more > 0 ? "; and \(more) more" : "")) + "\n\n"
        }
        text += "**\(plural(process.count, "Assembly", "Assemblies")) to process**, \(plan.assemblies.count - process.count) cached from the last run, "
            + "\(gone.count) gone; \(plural(plan.fileCount, "file")), \(ByteSize(bytes: plan.byteCount)) in all.\n\n"
        if !plan.jobs.isEmpty {
            text += "| job | steps | Assemblies | to process | files | size |\n| --- | --- | ---: | ---: | ---: | ---: |\n"
            for job in plan.jobs {
                let assemblies = plan.assemblies.filter { $0.job == job }
                let files = assemblies.reduce(0) { $0 + $1.files.count }
                let bytes = assemblies.reduce(Int64(0)) { $0 + $1.bytes }
                let steps = assemblies.first.map { describe($0.instructions, order: stepOrder[job] ?? []) } ?? ""
                text += "| \(MarkupText.markdown(job)) | \(steps) | \(assemblies.count) | \(assemblies.filter { !cached.contains($0.id) }.count) | \(files) | \(ByteSize(bytes: bytes)) |\n"
            }
            text += "\n"
            let perStep = plan.jobs.compactMap { job in
                work?.filesPerStep(job: job).map { "- \(MarkupText.codeSpan(job)): \(MarkupText.markdown(StepWork.describe($0, order: stepOrder[job] ?? [])))\n" }
            }
            if !perStep.isEmpty { text += "**Work per step**\n\n" + perStep.joined() + "\n" }
        }
        if let usage { text += usage.markdown }
        if let causes, !causes.jobs.isEmpty {
            text += "**What changes, and why**\n\n"
            for job in causes.jobs {
                text += "- job \(MarkupText.codeSpan(job.name))\n"
                for cause in job.causes { text += "  - \(markdown(cause))\n" }
            }
            text += "\n"
        }
        if !process.isEmpty || !gone.isEmpty {
            text += "<details><summary>Assemblies that change</summary>\n\n| | job | Assembly | files | size | first files |\n| --- | --- | --- | ---: | ---: | --- |\n"
            for assembly in process.prefix(listed) {
                let names = assembly.files.prefix(3).map { MarkupText.codeSpan($0.path, inTable: true) }.joined(separator: ", ") + (assembly.files.count > 3 ? ", +\(assembly.files.count - 3) more" : "")
                text += "| + | \(MarkupText.markdown(assembly.job)) | \(MarkupText.codeSpan(String(assembly.id.prefix(12)), inTable: true)) | \(assembly.files.count) | \(ByteSize(bytes: assembly.bytes)) | \(names) |\n"
            }
            for entry in gone.prefix(max(0, listed - process.count)) {
                text += "| - | \(MarkupText.markdown(entry.job)) | \(MarkupText.codeSpan(String(entry.planID.prefix(12)), inTable: true)) | | | no longer in the plan |\n"
            }
            let hidden = process.count + gone.count - listed
            if hidden > 0 { text += "\n… and \(hidden) more (see `pipeline plan --out plan.json`).\n" }
            text += "\n</details>\n\n"
        }
        if !previous.isEmpty { text += fileChanges(plan, previous: previous) }
        if !warnings.isEmpty {
            text += "**Warnings**\n\n"
            for warning in warnings {
                let place = warning.location.map { "\(MarkupText.codeSpan("\($0.file):\($0.line):\($0.column)")): " } ?? ""
                text += "- \(place)\(MarkupText.markdown(warning.message)) (\(MarkupText.codeSpan(warning.id)))\n"
            }
            text += "\n"
        }
        if let templates { text += "**Templates**\n\n" + MarkupText.codeBlock(templates) }
        return text
    }

    /// A plan that could not be made: its errors, so a summary says why rather than nothing.
    static func failure(manifest: String, errors: [Diagnostic]) -> String {
        var text = "### Plan for \(MarkupText.codeSpan(manifest)): failed\n\n"
        for error in errors.prefix(listed) {
            let place = error.location.map { "\(MarkupText.codeSpan("\($0.file):\($0.line):\($0.column)")): " } ?? ""
            text += "- \(place)\(MarkupText.markdown(error.message)) (\(MarkupText.codeSpan(error.id)))\n"
        }
        if errors.count > listed { text += "- … and \(errors.count - listed) more\n" }
        return text + "\n"
    }

    /// The input files added, changed and removed since the last run, by path (byte for byte; at most `listed`).
    private static func fileChanges(_ plan: Plan, previous: [ExactName: SHA256Digest]) -> String {
        var current: [ExactName: SHA256Digest] = [:]
        for assembly in plan.assemblies { for file in assembly.files { current[ExactName(file.path)] = file.digest } }
        var changes: [(sign: String, path: ExactName)] = []
        for (path, digest) in current where previous[path] != digest { changes.append((previous[path] == nil ? "added" : "changed", path)) }
        for path in previous.keys where current[path] == nil { changes.append(("removed", path)) }
        guard !changes.isEmpty else { return "" }
        changes.sort { $0.path < $1.path }
        let counts = ["added", "changed", "removed"].map { kind in "\(changes.filter { $0.sign == kind }.count) \(kind)" }.joined(separator: ", ")
        var text = "<details><summary>Files since the last run: \(counts)</summary>\n\n"
        for change in changes.prefix(listed) { text += "- \(change.sign) \(MarkupText.codeSpan(change.path.text))\n" }
        if changes.count > listed { text += "- … and \(changes.count - listed) more\n" }
        return text + "\n</details>\n\n"
    }

    /// A job's steps in the manifest's order (`order`; others after it, by name).
    private static func describe(_ instructions: JSONValue, order: [String]) -> String {
        if let steps = instructions["steps"]?.objectValue {
            let names = order.filter { steps[$0] != nil } + steps.keys.filter { !order.contains($0) }.sorted()
            return names.map { name in "\(MarkupText.markdown(name)) (\(MarkupText.codeSpan(steps[name]?["robot"]?.stringValue ?? "?", inTable: true)))" }.joined(separator: ", ")
        }
        let template = instructions["template_id"]?.stringValue ?? instructions["template"]?["name"]?.stringValue
        return template.map { "Template \(MarkupText.codeSpan($0, inTable: true))" } ?? ""
    }

    /// A cause with its options as code.
    private static func markdown(_ cause: ChangeCauses.Cause) -> String {
        cause.options.map { "\(MarkupText.codeSpan($0)) (\(MarkupText.markdown(cause.effect)))" } ?? MarkupText.markdown(cause.effect)
    }
}
