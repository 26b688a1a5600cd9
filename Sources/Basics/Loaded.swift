/// The outcome of reading a user file: the value if it was usable, every diagnostic, and the text
/// of the files read so diagnostics can show their source lines.
public struct Loaded<Value> {
    /// The value, or `nil` when an error made it unusable.
    public var value: Value?
    /// Everything found, errors and warnings.
    public var diagnostics: [Diagnostic]
    /// The text of the files read.
    public var sources: SourceStore
    /// The value as far as it could be read when errors made it unusable, for the checks it still allows.
    public var partial: Value?

    /// Creates an outcome.
    public init(value: Value?, diagnostics: [Diagnostic], sources: SourceStore, partial: Value? = nil) {
        self.value = value
        self.diagnostics = diagnostics
        self.sources = sources
        self.partial = partial
    }
}

extension Loaded: Sendable where Value: Sendable {}
