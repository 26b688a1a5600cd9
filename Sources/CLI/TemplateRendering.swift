import Basics
import Client
import Planning

/// Template comparisons as `plan` and `templates list` print them.
enum TemplateRendering {
    /// The plan's Templates section: each declared Template with its field changes; the endpoint's
    /// undeclared ones listed only when `prune` (as `sync --prune` would delete them), else counted.
    static func plan(_ comparisons: [TemplateComparison], against: String, prune: Bool) -> String {
        var text = "\nTemplates (against \(against)):\n"
        var undeclared = 0
        for comparison in comparisons {
            let name = comparison.name.printable, id = comparison.id.map { " (\($0.printable))" } ?? ""
            switch comparison.state {
            case .create: text += "  + template \(name)  to create\n"
            case .update: text += "  ~ template \(name)  to update\(id)\n" + changes(comparison)
            case .unchanged: text += "  = template \(name)  unchanged\(id)\n"
            case .undeclared where prune: text += "  - template \(name)  not declared: `pipeline templates sync --prune` deletes it\(id)\n"
            case .undeclared: undeclared += 1
            }
        }
        if undeclared > 0 {
            text += "  \(undeclared) more Template\(undeclared == 1 ? "" : "s") not declared here: `pipeline plan --prune` lists what a prune would delete\n"
        }
        return text
    }

    /// `templates list`: one line per Template, marked as in the plan, with field changes under '~'.
    static func list(_ comparisons: [TemplateComparison]) -> String {
        comparisons.map { comparison in
            "\(comparison.state.rawValue) \(comparison.name.printable)" + (comparison.id.map { "  \($0.printable)" } ?? "") + "\n" + changes(comparison)
        }.joined()
    }

    private static func changes(_ comparison: TemplateComparison) -> String {
        comparison.changes.map { "      \(DiffRendering.describe($0))\n" }.joined()
    }
}
