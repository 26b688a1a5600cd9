import Basics

/// Policy findings about one written value that several steps share (a YAML anchor and its
/// aliases, or a `<<:` merge), said once at the value with the steps that use it, instead of once
/// per step at the same line.
enum SharedValueFindings {
    /// `diagnostics` with those that differ only in the step they name, at one location, made one
    /// (at the first one's place).
    static func coalesced(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        var groups: [String: [Int]] = [:]
        for (index, diagnostic) in diagnostics.enumerated() {
            if let key = key(diagnostic) { groups[key, default: []].append(index) }
        }
        return diagnostics.indices.compactMap { index in
            let diagnostic = diagnostics[index]
            guard let key = key(diagnostic), let members = groups[key], members.count > 1, let (base, _) = split(diagnostic.message) else { return diagnostic }
            guard members.first == index else { return nil }
            let steps = members.compactMap { split(diagnostics[$0].message)?.1 }
            var merged = diagnostic
            merged.message = base + " (steps " + steps.map { "'\($0)'" }.joined(separator: ", ") + ")"
            merged.notes.insert(.init("written once here and used by \(steps.count) steps (an anchor and its aliases, or a merge): one fix serves them all"), at: 0)
            return merged
        }
    }

    /// What findings about one written value share: id, place and message without the step.
    private static func key(_ diagnostic: Diagnostic) -> String? {
        guard let location = diagnostic.location, let (base, _) = split(diagnostic.message) else { return nil }
        return "\(diagnostic.id)|\(location.file):\(location.line):\(location.column)|\(base)"
    }

    /// A finding's message without its trailing `(step 'NAME')`, and the name.
    private static func split(_ message: String) -> (String, String)? {
        guard message.hasSuffix("')"), let open = message.range(of: " (step '", options: .backwards) else { return nil }
        let name = message[open.upperBound..<message.index(message.endIndex, offsetBy: -2)]
        return (String(message[..<open.lowerBound]), String(name))
    }
}
