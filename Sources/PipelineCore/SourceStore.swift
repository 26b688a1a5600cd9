/// The text of the files diagnostics point into, so they can show the offending line.
public struct SourceStore: Sendable {
    private var linesByFile: [String: [Substring]] = [:]

    /// Creates an empty store.
    public init() {}

    /// Remembers the text of `file`.
    public mutating func add(file: String, text: String) {
        linesByFile[file] = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.last == "\r" ? line.dropLast() : line
        }
    }

    /// Adds every file of another store.
    public mutating func merge(_ other: SourceStore) {
        linesByFile.merge(other.linesByFile) { _, new in new }
    }

    /// The text of a 1-based line, if the file is known and the line exists.
    public func line(_ number: Int, in file: String) -> Substring? {
        guard let lines = linesByFile[file], number >= 1, number <= lines.count else { return nil }
        return lines[number - 1]
    }
}
