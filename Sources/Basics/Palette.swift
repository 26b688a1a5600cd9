/// Terminal colours for text meant for people, or none: with `enabled` false every function
/// returns its text unchanged, so pipes, files and CI logs never get escape codes.
public struct Palette: Sendable, Equatable {
    /// Whether escape codes are written.
    public let enabled: Bool

    /// No colours.
    public static let plain = Palette(enabled: false)

    /// Creates a palette.
    public init(enabled: Bool) { self.enabled = enabled }

    /// Bold red, for errors.
    public func error(_ text: String) -> String { wrap(text, "1;31") }
    /// Bold yellow, for warnings.
    public func warning(_ text: String) -> String { wrap(text, "1;33") }
    /// Cyan, for hints and notes.
    public func hint(_ text: String) -> String { wrap(text, "36") }
    /// Bold, for locations and headings.
    public func bold(_ text: String) -> String { wrap(text, "1") }
    /// Green, for what is added or made.
    public func added(_ text: String) -> String { wrap(text, "32") }
    /// Red, for what is removed.
    public func removed(_ text: String) -> String { wrap(text, "31") }
    /// Yellow, for what changes.
    public func changed(_ text: String) -> String { wrap(text, "33") }
    /// Dim, for what stays as it is.
    public func dim(_ text: String) -> String { wrap(text, "2") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
