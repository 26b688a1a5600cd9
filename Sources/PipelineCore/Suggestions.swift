/// Finds the candidate closest to a misspelled word, for "did you mean" hints.
public enum Suggestions {
    /// The closest candidate within a small edit distance, if any.
    public static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let limit = max(2, word.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(word.lowercased(), candidate.lowercased())
            if distance <= limit, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// "did you mean 'x'?" when there is a close candidate, else the list of valid words.
    public static func hint(for word: String, in candidates: [String], kind: String = "keys") -> String {
        if let match = closest(to: word, in: candidates) {
            return "did you mean '\(match)'?"
        }
        return "valid \(kind): " + candidates.sorted().joined(separator: ", ")
    }

    /// Levenshtein distance between two strings, counted in characters.
    public static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs), b = Array(rhs)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
