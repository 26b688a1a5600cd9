/// Maps paths into a JSON value (`["steps", "thumb", "width"]`) to where they were written.
public struct LocationIndex: Sendable {
    private var keys: [[String]: SourceLocation] = [:]
    private var values: [[String]: SourceLocation] = [:]

    /// Creates an empty index.
    public init() {}

    /// Records where the key and the value at `path` were written.
    public mutating func record(_ path: [String], key: SourceLocation?, value: SourceLocation) {
        if let key { keys[path] = key }
        values[path] = value
    }

    /// The location of the key (or else the value) at `path`, or of its nearest recorded ancestor.
    public func keyLocation(_ path: [String]) -> SourceLocation? {
        lookup(path) { keys[$0] ?? values[$0] }
    }

    /// The location of the value at `path`, or of its nearest recorded ancestor.
    public func valueLocation(_ path: [String]) -> SourceLocation? {
        lookup(path) { values[$0] }
    }

    private func lookup(_ path: [String], _ find: ([String]) -> SourceLocation?) -> SourceLocation? {
        var current = path
        while true {
            if let location = find(current) { return location }
            if current.isEmpty { return nil }
            current.removeLast()
        }
    }
}
