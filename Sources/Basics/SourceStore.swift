/// The text of the files diagnostics point into, so they can show the offending line.
public struct SourceStore: Sendable {
    private var linesByFile: [String: [Substring]] = [:]

    /// Creates an empty store.
    public init() {}

    /// Remembers the text of `file`.
    public mutating func add(file: String, text: String) {
        // Split on the byte 0x0A: "\r\n" is a single Character, so splitting characters would miss it.
        linesByFile[file] = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { bytes in
            let line = Substring(bytes)
            return line.utf8.last == UInt8(ascii: "\r") ? Substring(line.utf8.dropLast()) : line
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
