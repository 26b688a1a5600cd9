import Basics
import Planning

/// Renders a `PlanDiff` for review (text) and for machines (JSON).
enum DiffRendering {
    static let listedFiles = 10

    /// The differences job by job; with `summary`, the closing line of counts (or "No changes").
    static func text(_ diff: PlanDiff, palette: Palette = .plain, summary: Bool = true) -> String {
        var text = ""
        for job in diff.jobs where job.presence != .both || !job.created.isEmpty || !job.changed.isEmpty
            || !job.removed.isEmpty || !job.instructionChanges.isEmpty {
            switch job.presence {
            case .added: text += palette.added("+ job \(job.job.printable) (new)") + "\n"
            case .removed: text += palette.removed("- job \(job.job.printable) (removed)") + "\n"
            case .both: text += palette.changed("~ job \(job.job.printable)") + "\n"
            }
            for change in job.instructionChanges {
                text += "    " + palette.changed("~") + " \(describe(change)) (\(ChangeCauses.reprocessing(job)))\n"
            }
            for assembly in job.created {
                text += "    " + palette.added("+") + " \(assembly.id.prefix(12).printable)  \(plural(assembly.files.count, "file")), \(ByteSize(bytes: assembly.bytes))\n"
                text += fileLines(assembly.files.map { "+ \($0.path.printable)" })
            }
            for change in job.changed {
                text += "    " + palette.changed("~") + " \(change.old.id.prefix(12).printable) -> \(change.new.id.prefix(12).printable)  \(plural(change.new.files.count, "file"))\n"
                text += fileLines(change.addedFiles.map { "+ \($0.path.printable)" } + change.removedFiles.map { "- \($0.path.printable)" }
                    + change.changedFiles.map { "~ \($0.path.printable) (content changed)" })
            }
            for assembly in job.removed {
                text += "    " + palette.removed("-") + " \(assembly.id.prefix(12).printable)  \(plural(assembly.files.count, "file")), \(ByteSize(bytes: assembly.bytes))\n"
            }
        }
        guard summary else { return text }
        if diff.isEmpty { text += "No changes. Both plans create the same Assemblies.\n" } else { text += "\n" }
        text += "Plan: \(diff.createCount) to create, \(diff.changeCount) to change, \(diff.removeCount) to remove, "
            + "\(diff.unchangedCount) unchanged.\n"
        return text
    }

    private static func fileLines(_ lines: [String]) -> String {
        var text = lines.prefix(listedFiles).map { "        \($0)\n" }.joined()
        if lines.count > listedFiles { text += "        ... and \(lines.count - listedFiles) more\n" }
        return text
    }

    static func describe(_ change: ValueChange) -> String {
        let path = change.path.joined(separator: ".").printable
        switch (change.old, change.new) {
        case (nil, let new?): return "\(path): added \(new.serialized())"
        case (let old?, nil): return "\(path): removed (was \(old.serialized()))"
        case (let old?, let new?): return "\(path): \(old.serialized()) -> \(new.serialized())"
        case (nil, nil): return path
        }
    }

    static func json(_ diff: PlanDiff) -> JSONValue {
        .object([
            "summary": .object([
                "create": .int(diff.createCount), "change": .int(diff.changeCount),
                "remove": .int(diff.removeCount), "unchanged": .int(diff.unchangedCount),
            ]),
            "changed": .bool(!diff.isEmpty),
            "jobs": .array(diff.jobs.map { job in
                .object([
                    "job": .string(job.job),
                    "presence": .string(job.presence.rawValue),
                    "instructions": .array(job.instructionChanges.map { change in
                        .object([
                            "path": .string(change.path.joined(separator: ".")),
                            "old": change.old ?? .null, "new": change.new ?? .null,
                        ])
                    }),
                    "create": .array(job.created.map { .string($0.id) }),
                    "remove": .array(job.removed.map { .string($0.id) }),
                    "change": .array(job.changed.map { change in
                        .object([
                            "old_id": .string(change.old.id), "new_id": .string(change.new.id),
                            "files_added": .array(change.addedFiles.map { .string($0.path) }),
                            "files_removed": .array(change.removedFiles.map { .string($0.path) }),
                            "files_changed": .array(change.changedFiles.map { .string($0.path) }),
                        ])
                    }),
                    "unchanged": .int(job.unchanged),
                ])
            }),
        ])
    }
}
