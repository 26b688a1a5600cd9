/// A position in a source file: 1-based line and column (in characters).
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file as the user named it (relative paths stay relative).
    public var file: String
    /// The 1-based line number.
    public var line: Int
    /// The 1-based column, counted in characters.
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, the form compilers and editors understand.
    public var description: String { "\(file):\(line):\(column)" }
}

/// A value together with the place in a source file it came from.
public struct Located<Value> {
    /// The value.
    public var value: Value
    /// Where the value was written.
    public var location: SourceLocation

    /// Creates a located value.
    public init(_ value: Value, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

extension Located: Sendable where Value: Sendable {}
extension Located: Equatable where Value: Equatable {}
extension Located: Hashable where Value: Hashable {}
