import Basics
import Planning
import Spec
import YAML

/// How much room a suggested policy leaves above what a manifest and its files use today
/// (`policy suggest --margin 4x`): sizes, `batch: all` counts and number ranges are multiplied by it.
struct SuggestionMargin: Sendable, Equatable, CustomStringConvertible {
    /// The factor, at least 1.
    let factor: Double

    /// Four times what is seen: a month of more and larger files.
    static let standard = SuggestionMargin(factor: 4)

    private init(factor: Double) { self.factor = factor }

    /// `4x`, `4` or `1.5x`; nil for anything else, below 1 or above 1000.
    init?(parsing text: String) {
        let digits = text.hasSuffix("x") || text.hasSuffix("X") ? String(text.dropLast()) : text
        guard let factor = Double(digits), factor.isFinite, (1...1000).contains(factor),
              digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { return nil }
        self.factor = factor
    }

    /// `4x`, `1.5x`.
    var description: String {
        (factor == factor.rounded() ? String(Int(factor)) : String(factor)) + "x"
    }

    /// `count` with the margin, rounded up, at least 1.
    func count(_ count: Int) -> Int { max(1, Int((Double(count) * factor).rounded(.up))) }

    /// `bytes` with the margin.
    func bytes(_ bytes: Int64) -> Int64 { Int64((Double(bytes) * factor).rounded(.up)) }
}

extension PolicySuggestion {
    /// Limits from what the manifest declares (its batch sizes), and sizes from the plan with the
    /// margin: the largest file times the margin, and as many more files of that size in an
    /// Assembly and a run. A month of more and larger files passes; a pattern that reaches a
    /// whole disk does not.
    func limits() -> [String] {
        var lines: [String] = []
        let batches = manifest.jobs.compactMap { job -> Int? in if case .count(let count) = job.batch { count } else { nil } }
        let whole = manifest.jobs.filter { $0.batch == .all }.map(\.name.value)
        var files = batches.max().map { ($0, "the manifest's largest batch") }
        if !whole.isEmpty {
            if let plan {
                let today = plan.assemblies.filter { whole.contains($0.job) }.map(\.files.count).max() ?? 0
                let grown = margin.count(today)
                if grown > files?.0 ?? 0 {
                    files = (grown, "\(margin) the \(plural(today, "file")) that 'batch: all' sends in one Assembly today")
                }
            } else {
                files = nil
            }
        }
        if let (count, why) = files {
            lines.append("  files_per_assembly: \(count)   " + YAMLText.comment(why))
        }
        if let plan, !plan.assemblies.isEmpty {
            let largest = plan.assemblies.flatMap(\.files).map(\.size).max() ?? 0
            let fileSize = Self.roomy(margin.bytes(largest))
            lines.append("  file_size: \(fileSize.text)   " + YAMLText.comment("\(margin) the largest file today (\(ByteSize(bytes: largest)))"))
            if let (count, _) = files, case let (product, false) = fileSize.bytes.multipliedReportingOverflow(by: Int64(count)) {
                let assembly = Self.roomy(product)
                lines.append("  assembly_size: \(assembly.text)   " + YAMLText.comment("files_per_assembly x file_size: any Assembly of allowed files"))
            }
            // As many more files as the margin says, each as large as file_size allows.
            let files = margin.count(plan.fileCount)
            if case let (product, false) = fileSize.bytes.multipliedReportingOverflow(by: Int64(files)) {
                let run = Self.roomy(product)
                lines.append("  run_size: \(run.text)   " + YAMLText.comment(
                    "\(margin) the run's \(plural(plan.fileCount, "file")) today (\(ByteSize(bytes: plan.byteCount))), each up to file_size"))
            }
        }
        return lines.isEmpty ? [] : ["limits:"] + lines
    }

    /// `size` rounded up to a whole number of the unit it reads in, and at least 1 KB, with
    /// the bytes that text stands for.
    static func roomy(_ size: Int64) -> (text: String, bytes: Int64) {
        let units: [(Int64, String)] = [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")]
        for (scale, unit) in units where size >= scale {
            let whole = (size + scale - 1) / scale
            return ("\(whole)\(unit)", whole * scale)
        }
        return ("1KB", 1_000)
    }
}
