import Basics

extension RobotCatalog {
    /// The kinds of file (`ContentInspection.kind`) each robot the local engine runs processes,
    /// from its declaration; other robots (files, imports, exports, and what only the service
    /// runs) take any file.
    static let inputKinds: [String: Set<FileKind>] = RobotRegistry.byName.compactMapValues { declaration in
        guard case .kinds(let kinds) = declaration.inputs else { return nil }
        return kinds
    }

    /// The robots that make one file of all their inputs (an archive): their result is no one source's.
    public static let bundling: Set<String> = Set(RobotRegistry.byName.filter { $0.value.digest == .bundle }.keys)

    /// Whether `robot` processes a file of `kind` (nil: none known); true for robots that take any file.
    public static func takes(_ robot: String, kind: String?) -> Bool {
        guard let kinds = inputKinds[robot] else { return true }
        return kind.flatMap(FileKind.init(rawValue:)).map(kinds.contains) ?? false
    }

    /// The kinds `robot` processes, for messages ("images or PDFs"); nil when it takes any file.
    public static func inputKindsText(_ robot: String) -> String? {
        inputKinds[robot].map { kinds in kinds.sorted { $0.rawValue < $1.rawValue }.map(\.plural).joined(separator: " or ") }
    }

    /// The phases `ignore_errors` may name.
    public static let errorPhases: Set<String> = ["meta", "execute", "import"]

    /// The processing phases whose failures a step's `ignore_errors` (`value`) skips: all of them
    /// for `true`, none when absent or false, the ones a list (or one name) names; nil for anything else.
    public static func ignoredPhases(_ value: JSONValue?) -> Set<String>? {
        guard let value else { return [] }
        if let flag = value.boolValue { return flag ? errorPhases : [] }
        if let one = value.stringValue { return errorPhases.contains(one) ? [one] : nil }
        guard let items = value.arrayValue else { return nil }
        let names = items.compactMap(\.stringValue)
        return names.count == items.count && Set(names).isSubset(of: errorPhases) ? Set(names) : nil
    }
}
