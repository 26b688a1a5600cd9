import Basics
import Foundation
import Planning
import Spec
import YAML

/// A policy that allows what a manifest declares, with room to grow: its robots and each option
/// with a range around the numbers given or the values it takes, its fields, Templates and notify
/// URLs, the signature lifetime, files per Assembly from its batch sizes, and sizes a margin above
/// what the plan holds. Written as commented YAML, for a platform team to read, tighten and commit.
struct PolicySuggestion {
    /// Values one option is given across the manifest.
    private struct Uses {
        var values: [JSONValue] = []
        var steps: [String] = []
    }

    let manifest: Manifest
    let plan: Plan?
    /// The room above what is used today.
    var margin = SuggestionMargin.standard

    /// The most distinct strings an option may list as an `enum`; more are left to `type: string`.
    static let enumLimit = 12

    /// The policy's text.
    func yaml(manifestShown: String) -> String {
        // Every name and value goes through YAMLText: a step name is data, never a line of the policy.
        var lines = [
            YAMLText.comment("A policy that allows what \(manifestShown) declares (pipeline policy suggest):"),
            "# each robot and option it sets, files per Assembly from its batch sizes, and room to grow:",
            YAMLText.comment("sizes and number ranges \(margin) what is used today (--margin changes it). Widen or"),
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
                    let (constraint, note) = Self.constraint(uses.values, facts: facts(robot: robot, option: option), margin: margin)
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
            let (constraint, note) = Self.constraint(given, facts: OptionFacts(), margin: margin)
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
}
