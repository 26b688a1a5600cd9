import Client
import Planning

/// The output bytes each step made per input byte on the last run (its completed Assemblies),
/// by job: an Assembly that makes only some steps (the others cached) is estimated by those.
struct OutputRatios {
    /// Job -> step -> output bytes per input byte.
    private var byStep: [String: [String: Double]] = [:]
    /// Job -> output bytes of all steps per input byte.
    private var whole: [String: Double] = [:]
    /// Job -> the steps the last run ran (step-cached jobs name them per file).
    private var measured: [String: Set<String>] = [:]

    init(_ last: RunResults?) {
        var input: [String: Int64] = [:], output: [String: [String: Int64]] = [:]
        for entry in last?.assemblies ?? [] where entry.isCompleted {
            input[entry.job, default: 0] += entry.files.reduce(0) { $0 + $1.size }
            measured[entry.job, default: []].formUnion(entry.steps.values.flatMap(\.keys))
            for (step, files) in entry.results { output[entry.job, default: [:]][step, default: 0] += files.reduce(0) { $0 + ($1.size ?? 0) } }
        }
        for (job, bytes) in input where bytes > 0 {
            let steps = output[job] ?? [:]
            byStep[job] = steps.mapValues { Double($0) / Double(bytes) }
            whole[job] = Double(steps.values.reduce(0, +)) / Double(bytes)
        }
    }

    /// The output `assembly` is likely to make: its bytes at the ratio of each step it holds
    /// (of all steps, for a job not cached step by step); nil when a step of it was not measured.
    func output(of assembly: PlannedAssembly) -> Int64? {
        guard let ratio = whole[assembly.job] else { return nil }
        let known = measured[assembly.job] ?? []
        guard !known.isEmpty, let steps = UsageEstimate.steps(of: assembly.instructions)?.keys else {
            return Int64((Double(assembly.bytes) * ratio).rounded())
        }
        guard steps.allSatisfy(known.contains) else { return nil }
        let perByte = steps.reduce(0) { $0 + (byStep[assembly.job]?[$1] ?? 0) }
        return Int64((Double(assembly.bytes) * perByte).rounded())
    }
}
