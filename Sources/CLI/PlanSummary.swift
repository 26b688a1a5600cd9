import Basics
import Client
import Planning

/// The human summary of a plan: per job its Assemblies, files and bytes.
enum PlanSummary {
    /// How many Assemblies are listed per job before "... and N more".
    static let listedPerJob = 10

    /// `work` says what a run would do and take from the last results (per Assembly, and per
    /// step for a job cached step by step); `stepOrder` the steps of each job in the order the manifest writes them.
    static func render(_ plan: Plan, work: RunWork? = nil, stepOrder: [String: [String]] = [:], palette: Palette = .plain) -> String {
        let cached = work?.cachedIDs ?? []
        var text = palette.bold("Plan for '\(plan.pipeline)' (\(plan.manifest))") + "\n"
        for job in plan.jobs {
            let assemblies = plan.assemblies.filter { $0.job == job }
            let files = assemblies.reduce(0) { $0 + $1.files.count }
            let bytes = assemblies.reduce(Int64(0)) { $0 + $1.bytes }
            text += "\n" + palette.bold("job \(job):") + " \(plural(assemblies.count, "Assembly", "Assemblies")), \(plural(files, "file")), \(ByteSize(bytes: bytes))\n"
            if let instructions = assemblies.first?.instructions {
                text += "  " + describe(instructions, order: stepOrder[job] ?? []) + "\n"
            }
            if let steps = work?.filesPerStep(job: job) { text += "  work: " + StepWork.describe(steps, order: stepOrder[job] ?? []) + "\n" }
            for assembly in assemblies.prefix(listedPerJob) {
                let mark = cached.contains(assembly.id) ? palette.dim("=") : palette.added("+")
                text += "  \(mark) \(assembly.id.prefix(12))  \(fileList(assembly))\(cached.contains(assembly.id) ? " (cached)" : "")\n"
            }
            if assemblies.count > listedPerJob {
                text += "  ... and \(assemblies.count - listedPerJob) more (see --out)\n"
            }
        }
        if plan.assemblies.isEmpty { text += "\nNo input files: nothing to do.\n" }
        let reused = plan.assemblies.filter { cached.contains($0.id) }.count
        text += "\nPlan: \(plural(plan.assemblies.count, "Assembly", "Assemblies")), \(plural(plan.fileCount, "file")), "
            + "\(ByteSize(bytes: plan.byteCount)) in \(plural(plan.jobs.count, "job"))"
            + (reused > 0 ? "; \(reused) cached from the last run, \(plan.assemblies.count - reused) to process.\n" : ".\n")
        return text
    }

    private static func describe(_ instructions: JSONValue, order: [String]) -> String {
        var parts: [String] = []
        if let steps = instructions["steps"]?.objectValue {
            // As the manifest writes them; steps it does not know (a plan file's) follow in name order.
            let ordered = order.filter { steps[$0] != nil } + steps.keys.filter { !order.contains($0) }.sorted()
            let names = ordered.map { name in "\(name) (\(steps[name]?["robot"]?.stringValue ?? "?"))" }
            parts.append("steps: " + names.joined(separator: ", "))
        }
        if let template = instructions["template_id"]?.stringValue { parts.append("template: \(template)") }
        if let template = instructions["template"]?["name"]?.stringValue { parts.append("template: \(template)") }
        return parts.joined(separator: "; ")
    }

    private static func fileList(_ assembly: PlannedAssembly) -> String {
        let names = assembly.files.prefix(3).map { TerminalText.printable($0.path) }.joined(separator: ", ")
        let more = assembly.files.count > 3 ? ", +\(assembly.files.count - 3) more" : ""
        return "\(plural(assembly.files.count, "file")), \(ByteSize(bytes: assembly.bytes)): \(names)\(more)"
    }
}
