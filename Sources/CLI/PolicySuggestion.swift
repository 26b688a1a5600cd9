import Basics
import Foundation
import Planning
import Spec
import YAML

/// The narrowest policy that allows what a manifest uses: its robots and each option with the
/// range or the values it is given, its fields, Templates and notify URLs, the signature
/// lifetime, and size limits just above what the plan holds. Written as commented YAML, for a
/// platform team to read, tighten and commit.
struct PolicySuggestion {
    /// Values one option is given across the manifest.
    private struct Uses {
        var values: [JSONValue] = []
        var steps: [String] = []
    }

    let manifest: Manifest
    let plan: Plan?

    /// The most distinct strings an option may list as an `enum`; more are left to `type: string`.
    static let enumLimit = 12

    /// The policy's text.
    func yaml(manifestShown: String) -> String {
        // Every name and value goes through YAMLText: a step name is data, never a line of the policy.
        var lines = [
            YAMLText.comment("The narrowest policy that allows what \(manifestShown) uses (pipeline policy suggest):"),
            "# each robot and option it sets, with the values or the range it gives them. Widen or",
            "# tighten it by hand; `pipeline plan` checks the manifest against it, and `pipeline signer`",
            "# enforces it. Its schema: schemas/policy.schema.json.",
            "version: 1",
            "max_expires_in: \(YAMLText.scalar(DurationText.format(manifest.auth.expiresIn?.value ?? AuthSettings.defaultExpiresIn)))   # auth.expires_in",
        ]
        lines += limits()
        let fields = Set(manifest.jobs.flatMap { $0.fields.keys })
        if !fields.isEmpty { lines += ["fields:", "  allowed: \(YAMLText.flowSequence(fields.sorted()))"] }
        let notify = Set(manifest.jobs.compactMap { $0.notifyURL?.value })
        if !notify.isEmpty { lines += ["notify_url:", "  allowed: \(YAMLText.flowSequence(notify.sorted()))"] }
        let templates = Set(manifest.jobs.compactMap { $0.templateID?.value } + manifest.jobs.compactMap { $0.template?.name.value })
        if !templates.isEmpty {
            lines += ["templates:", "  allowed: \(YAMLText.flowSequence(templates.sorted()))"]
            // Templates named in the manifest are found by name: listing them must be signed.
            if manifest.jobs.contains(where: { $0.template != nil }) { lines.append("  allow_listing: true   # Templates of the manifest are found by name") }
            if manifest.jobs.contains(where: { $0.templateID != nil && !$0.steps.isEmpty }) { lines.append("  allow_steps_override: true") }
        }
        lines += smartCDN()
        let robots = robotUses()
        if robots.isEmpty {
            lines.append("robots: {}")
        } else {
            lines.append("robots:")
            for (robot, options) in robots.sorted(by: { $0.key < $1.key }) {
                if options.isEmpty {
                    lines.append("  \(YAMLText.scalar(robot)): {}")
                    continue
                }
                lines.append("  \(YAMLText.scalar(robot)):")
                for (option, uses) in options.sorted(by: { $0.key < $1.key }) {
                    let (constraint, note) = Self.constraint(uses.values)
                    let steps = Array(Set(uses.steps)).sorted().joined(separator: ", ")
                    lines.append("    \(YAMLText.scalar(option)): \(constraint)   " + YAMLText.comment("\(note) (\(steps))"))
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The `smart_cdn:` section for the jobs' Smart CDN URLs: their workspaces, Templates,
    /// parameters with the values given, and the longest lifetime asked; none without such a job.
    private func smartCDN() -> [String] {
        let specs = manifest.jobs.compactMap(\.smartCDN)
        guard let longest = specs.map(\.expiresIn).max() else { return [] }
        var lines = [
            "smart_cdn:", "  workspaces: \(YAMLText.flowSequence(Set(specs.map(\.workspace)).sorted()))",
            "  templates: \(YAMLText.flowSequence(Set(specs.map(\.template)).sorted()))",
        ]
        let values = Dictionary(grouping: specs.flatMap(\.parameters), by: \.name).mapValues { $0.map { JSONValue.string($0.value) } }
        if values.isEmpty { lines.append("  params: {}") } else { lines.append("  params:") }
        for (name, given) in values.sorted(by: { $0.key < $1.key }) {
            let (constraint, note) = Self.constraint(given)
            lines.append("    \(YAMLText.scalar(name)): \(constraint)   " + YAMLText.comment(note))
        }
        lines.append("  max_expires_in: \(YAMLText.scalar(DurationText.format(longest)))")
        return lines
    }

    /// Every robot of the manifest's steps (its Templates' too) with the values each option is given.
    private func robotUses() -> [String: [String: Uses]] {
        var robots: [String: [String: Uses]] = [:]
        let steps = manifest.jobs.flatMap { job in job.steps.map { ("\(job.name.value)/\($0.name.value)", $0) } }
            + manifest.templates.flatMap { template in template.steps.map { ("template \(template.name.value)/\($0.name.value)", $0) } }
        for (name, step) in steps {
            var options = robots[step.robot] ?? [:]
            for (option, value) in step.instructions.objectValue ?? [:] where !Policy.structuralStepKeys.contains(option) {
                options[option, default: Uses()].values.append(value)
                options[option, default: Uses()].steps.append(name)
            }
            robots[step.robot] = options
        }
        return robots
    }

    /// Limits a little above what the plan holds (its largest Assembly, file and whole run).
    private func limits() -> [String] {
        guard let plan, !plan.assemblies.isEmpty else { return [] }
        let files = plan.assemblies.map(\.files.count).max() ?? 0
        let largest = plan.assemblies.flatMap(\.files).map(\.size).max() ?? 0
        let assembly = plan.assemblies.map(\.bytes).max() ?? 0
        return [
            "limits:",
            "  files_per_assembly: \(max(1, files))   " + YAMLText.comment("the plan's largest Assembly holds \(plural(files, "file"))"),
            "  file_size: \(Self.roomy(largest))   " + YAMLText.comment("its largest file is \(ByteSize(bytes: largest))"),
            "  assembly_size: \(Self.roomy(assembly))   " + YAMLText.comment("its largest Assembly is \(ByteSize(bytes: assembly))"),
            "  run_size: \(Self.roomy(plan.byteCount))   " + YAMLText.comment("the whole run is \(ByteSize(bytes: plan.byteCount))"),
        ]
    }

    /// A constraint (as YAML flow) allowing exactly `values`, and a note saying what was seen.
    static func constraint(_ values: [JSONValue]) -> (String, String) {
        let distinct = values.reduce(into: [JSONValue]()) { kept, value in if !kept.contains(value) && value != .null { kept.append(value) } }
        if distinct.isEmpty { return ("{}", "only null given") }
        if distinct.allSatisfy({ $0.boolValue != nil }) {
            return ("{type: boolean}", "given " + distinct.compactMap(\.boolValue).map(String.init).sorted().joined(separator: ", "))
        }
        let numbers = distinct.compactMap(\.doubleValue)
        if numbers.count == distinct.count, let low = numbers.min(), let high = numbers.max() {
            let integral = distinct.allSatisfy { $0.intValue != nil }
            let shown = distinct.sorted { ($0.doubleValue ?? 0) < ($1.doubleValue ?? 0) }.map { $0.serialized() }.joined(separator: ", ")
            return ("{type: \(integral ? "integer" : "number"), min: \(format(low)), max: \(format(high))}", "given \(shown)")
        }
        let strings = distinct.compactMap(\.stringValue)
        if strings.count == distinct.count {
            if strings.count <= enumLimit { return ("{enum: \(YAMLText.flowSequence(strings.sorted()))}", "the values given") }
            return ("{type: string}", "\(strings.count) different values given")
        }
        if distinct.allSatisfy({ $0.arrayValue != nil }) { return ("{type: array}", "lists given") }
        if distinct.allSatisfy({ $0.objectValue != nil }) { return ("{type: object}", "objects given") }
        return ("{}", "values of several types given")
    }

    /// `size` rounded up to a whole number of the unit it reads in, and at least 1 KB: room for a
    /// file a little larger, not for one of another kind.
    static func roomy(_ size: Int64) -> String {
        let units: [(Int64, String)] = [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")]
        for (scale, unit) in units where size >= scale {
            return "\((size + scale - 1) / scale)\(unit)"
        }
        return "1KB"
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
