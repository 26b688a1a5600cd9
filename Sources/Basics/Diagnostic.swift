/// One problem found in user input, with a stable id, a location and a way to fix it.
public struct Diagnostic: Hashable, Sendable {
    /// How serious a diagnostic is.
    public enum Severity: String, Sendable, Comparable {
        case error, warning, note

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs.rank < rhs.rank
        }

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .note: 2
            }
        }
    }

    /// Extra context attached to a diagnostic, optionally pointing elsewhere.
    public struct Note: Hashable, Sendable {
        /// What the note says.
        public var message: String
        /// Where the note points, if anywhere.
        public var location: SourceLocation?

        /// Creates a note.
        public init(_ message: String, at location: SourceLocation? = nil) {
            self.message = message
            self.location = location
        }
    }

    /// A stable, dotted identifier such as `manifest.unknown-key`.
    public var id: String
    /// Error, warning or note.
    public var severity: Severity
    /// One sentence saying what is wrong.
    public var message: String
    /// Where the problem is, when it comes from a file.
    public var location: SourceLocation?
    /// Related places and facts.
    public var notes: [Note]
    /// How to fix the problem.
    public var hint: String?
    /// Whether the source line may be shown with it; not when that line holds a secret, which would
    /// then be on a terminal or in a CI log.
    public var quotesSource = true

    /// Creates a diagnostic.
    public init(
        id: String,
        severity: Severity = .error,
        message: String,
        location: SourceLocation? = nil,
        notes: [Note] = [],
        hint: String? = nil
    ) {
        self.id = id
        self.severity = severity
        self.message = message
        self.location = location
        self.notes = notes
        self.hint = hint
    }

    /// Creates an error diagnostic.
    public static func error(
        _ id: String, _ message: String, at location: SourceLocation? = nil,
        hint: String? = nil, notes: [Note] = []
    ) -> Diagnostic {
        Diagnostic(id: id, severity: .error, message: message, location: location, notes: notes, hint: hint)
    }

    /// The same diagnostic, shown without its source line (the line holds a secret).
    public func withoutSource() -> Diagnostic {
        var copy = self
        copy.quotesSource = false
        return copy
    }

    /// Creates a warning diagnostic.
    public static func warning(
        _ id: String, _ message: String, at location: SourceLocation? = nil,
        hint: String? = nil, notes: [Note] = []
    ) -> Diagnostic {
        Diagnostic(id: id, severity: .warning, message: message, location: location, notes: notes, hint: hint)
    }
}

extension Array where Element == Diagnostic {
    /// Whether any diagnostic is an error.
    public var containsErrors: Bool { contains { $0.severity == .error } }

    /// The diagnostics with exact repeats removed, first occurrence kept.
    public func uniqued() -> [Diagnostic] {
        var seen: Set<Diagnostic> = []
        return filter { seen.insert($0).inserted }
    }

    /// Diagnostics ordered by file, line and column; those without a location last.
    public func sortedByLocation() -> [Diagnostic] {
        enumerated().sorted { lhs, rhs in
            switch (lhs.element.location, rhs.element.location) {
            case let (l?, r?):
                if l.file != r.file { return l.file < r.file }
                if l.line != r.line { return l.line < r.line }
                if l.column != r.column { return l.column < r.column }
                return lhs.offset < rhs.offset
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): return lhs.offset < rhs.offset
            }
        }.map(\.element)
    }
}

/// An error that carries the diagnostics explaining it.
public struct DiagnosticsError: Error, Sendable {
    /// Everything that went wrong, in the order found.
    public var diagnostics: [Diagnostic]

    /// Wraps diagnostics into an error.
    public init(_ diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    /// Wraps one diagnostic into an error.
    public init(_ diagnostic: Diagnostic) {
        self.diagnostics = [diagnostic]
    }
}
