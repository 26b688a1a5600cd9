import Basics

/// How removed engine data is said, by `gc` and by a run that pruned.
enum GarbageText {
    /// "1 Assembly, 3 uploads and 6 result files".
    static func removed(assemblies: Int, uploads: Int, results: Int) -> String {
        "\(plural(assemblies, "Assembly", "Assemblies")), \(plural(uploads, "upload")) and \(plural(results, "result file"))"
    }
}
