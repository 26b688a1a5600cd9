import Foundation

/// One input pattern, split into path segments after brace expansion: `images/**/*.{jpg,png}`
/// becomes two alternatives. `*`, `?` and `[abc]` match within a segment (glibc `fnmatch`, which
/// keeps `*` from matching a leading dot); `**` matches any number of folders.
public struct GlobPattern: Sendable, Hashable {
    /// One path segment of a pattern.
    public enum Segment: Sendable, Hashable {
        /// A name without wildcards.
        case literal(String)
        /// A name with `*`, `?` or `[...]`.
        case wildcard(String)
        /// `**`: zero or more folders.
        case globstar
    }

    /// The pattern as written.
    public var source: String
    /// Whether the pattern started with `/`.
    public var isAbsolute: Bool
    /// The segments of each brace alternative.
    public var alternatives: [[Segment]]

    /// Why a pattern cannot be used.
    public struct Problem: Error, Sendable, Equatable {
        /// What is wrong.
        public var message: String
        /// How to fix it.
        public var hint: String
    }

    /// The most alternatives brace expansion may produce.
    public static let maxAlternatives = 1024

    /// Parses a pattern (without a leading `!`).
    public init(_ source: String) throws(Problem) {
        self.source = source
        self.isAbsolute = source.hasPrefix("/")
        var alternatives: [[Segment]] = []
        try Self.checkBraces(source)
        for expanded in try Self.expandBraces(source) {
            let parts = expanded.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
            guard !parts.isEmpty else {
                throw Problem(message: "pattern '\(source)' names no files", hint: "write a path or a pattern such as 'images/*.jpg'")
            }
            var segments: [Segment] = []
            for part in parts {
                let text = String(part)
                if text == "**" {
                    if segments.last != .globstar { segments.append(.globstar) }
                } else if text.contains(where: { "*?[".contains($0) }) {
                    segments.append(.wildcard(text))
                } else {
                    segments.append(.literal(Self.unescape(text)))
                }
            }
            let leadingDots = segments.prefix { $0 == .literal("..") }.count
            if segments.dropFirst(leadingDots).contains(.literal("..")) {
                throw Problem(
                    message: "'..' in pattern '\(source)' may only appear at its start",
                    hint: "write the folder part first, such as '../shared/*.png'")
            }
            if segments.last == .globstar {
                segments.append(.wildcard("*"))
            }
            alternatives.append(segments)
        }
        self.alternatives = alternatives
    }

    /// Whether the pattern can reach outside the folder it is relative to.
    public var escapesBase: Bool {
        isAbsolute || alternatives.contains { $0.first == .literal("..") }
    }

    /// Whether a relative path (split into segments) matches any alternative.
    public func matches(_ path: [Substring]) -> Bool {
        alternatives.contains { Self.match(ArraySlice($0), path[...]) }
    }

    /// Each alternative's fixed folders: the literal segments before its first wildcard (without
    /// the last, a file's name, when it has no wildcard), joined by `/`.
    public var fixedPrefixes: [String] {
        alternatives.map { alternative in
            let literal = alternative.prefix { if case .literal = $0 { true } else { false } }
            let folders = literal.count == alternative.count ? literal.dropLast() : literal[...]
            return folders.map { if case .literal(let name) = $0 { name } else { "" } }.joined(separator: "/")
        }
    }

    /// How many leading folders of `path` the first alternative it matches names literally (the
    /// pattern's fixed prefix, before its first wildcard); nil when no alternative matches.
    public func fixedFolders(of path: [Substring]) -> Int? {
        guard let alternative = alternatives.first(where: { Self.match(ArraySlice($0), path[...]) }) else { return nil }
        let literal = alternative.prefix { if case .literal = $0 { true } else { false } }.count
        return min(literal, max(path.count - 1, 0))
    }

    private static func match(_ pattern: ArraySlice<Segment>, _ path: ArraySlice<Substring>) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        switch first {
        case .globstar:
            var rest = path
            while true {
                if match(pattern.dropFirst(), rest) { return true }
                guard let next = rest.first, !next.hasPrefix(".") else { return false }
                rest = rest.dropFirst()
            }
        case .literal(let name):
            // Byte for byte, as the walker finds names: `Crème` composed does not match it decomposed.
            guard let segment = path.first, segment.utf8.elementsEqual(name.utf8) else { return false }
            return match(pattern.dropFirst(), path.dropFirst())
        case .wildcard(let wildcard):
            guard let segment = path.first, Self.fnmatches(wildcard, String(segment)) else { return false }
            return match(pattern.dropFirst(), path.dropFirst())
        }
    }

    /// glibc `fnmatch` with `FNM_PERIOD`: a leading `.` must be matched explicitly.
    static func fnmatches(_ pattern: String, _ name: String) -> Bool {
        fnmatch(pattern, name, FNM_PERIOD) == 0
    }

    /// One wildcard segment made ready to match a folder's names: the commonest kind, `*` and a
    /// plain suffix (`*.jpg`), by comparing bytes; any other by `fnmatch`, with the same answers.
    struct WildcardMatcher {
        private let pattern: String
        private let suffix: [UInt8]?

        init(_ pattern: String) {
            self.pattern = pattern
            let rest = pattern.utf8.dropFirst()
            let special = Set("*?[\\".utf8)
            suffix = pattern.hasPrefix("*") && !rest.contains(where: special.contains) ? Array(rest) : nil
        }

        func matches(_ name: String) -> Bool {
            guard let suffix else { return fnmatches(pattern, name) }
            // `*` never matches a leading dot (FNM_PERIOD).
            let bytes = name.utf8
            return bytes.first != UInt8(ascii: ".") && bytes.count >= suffix.count && bytes.suffix(suffix.count).elementsEqual(suffix)
        }
    }

    /// `path` as a pattern that matches it alone: its wildcard and brace characters escaped.
    public static func escaped(_ path: String) -> String {
        String(path.flatMap { "*?[]{}\\".contains($0) ? ["\\", $0] : [$0] })
    }

    private static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var output = ""
        var escaped = false
        for character in text {
            if !escaped, character == "\\" {
                escaped = true
                continue
            }
            output.append(character)
            escaped = false
        }
        return output
    }

    /// Reports an unmatched brace, naming the pattern as written.
    static func checkBraces(_ text: String) throws(Problem) {
        var depth = 0
        var escaped = false
        for character in text {
            if escaped { escaped = false; continue }
            switch character {
            case "\\": escaped = true
            case "{": depth += 1
            case "}":
                depth -= 1
                if depth < 0 { throw Problem(message: "unmatched '}' in pattern '\(text)'", hint: "escape a literal brace as '\\}'") }
            default: break
            }
        }
        if depth > 0 { throw Problem(message: "unmatched '{' in pattern '\(text)'", hint: "close it with '}' or escape it as '\\{'") }
    }

    /// `a{b,c{d,e}}f` → `abf`, `acdf`, `acef`. Backslash escapes a brace or comma.
    static func expandBraces(_ text: String) throws(Problem) -> [String] {
        let characters = Array(text)
        var depth = 0
        var open: Int?
        var commas: [Int] = []
        var index = 0
        while index < characters.count {
            switch characters[index] {
            case "\\": index += 1
            case "{":
                if depth == 0 { open = index; commas = [] }
                depth += 1
            case ",":
                if depth == 1 { commas.append(index) }
            case "}":
                depth -= 1
                if depth < 0 {
                    throw Problem(message: "unmatched '}' in pattern '\(text)'", hint: "escape a literal brace as '\\}'")
                }
                if depth == 0, let start = open {
                    let prefix = String(characters[..<start])
                    let suffix = String(characters[(index + 1)...])
                    let bounds = [start] + commas + [index]
                    var results: [String] = []
                    for (lower, upper) in zip(bounds, bounds.dropFirst()) {
                        let choice = String(characters[(lower + 1)..<upper])
                        for expanded in try expandBraces(prefix + choice + suffix) {
                            results.append(expanded)
                            if results.count > maxAlternatives {
                                throw Problem(
                                    message: "pattern '\(text)' expands to more than \(maxAlternatives) alternatives",
                                    hint: "use fewer '{a,b}' groups")
                            }
                        }
                    }
                    return results
                }
            default: break
            }
            index += 1
        }
        if depth > 0 {
            throw Problem(message: "unmatched '{' in pattern '\(text)'", hint: "close it with '}' or escape it as '\\{'")
        }
        return [text]
    }
}
