/// Finds the candidate closest to a misspelled word, for "did you mean" hints.
public enum Suggestions {
    /// The closest candidate within a small edit distance, if any.
    public static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let limit = word.count <= 3 ? 1 : max(2, word.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates.sorted() {
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

    /// Edit distance counting insertions, deletions, substitutions and swaps of neighbours
    /// (optimal string alignment), in characters.
    public static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs), b = Array(rhs)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
