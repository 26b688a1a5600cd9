import Foundation
import Basics

/// A YAML file read for decoding: its root node, its text for diagnostics, and what went wrong.
public struct YAMLDocument: Sendable {
    /// The root node; `nil` when the file is empty or could not be parsed.
    public var root: Node?
    /// The file's text, for rendering diagnostics.
    public var sources: SourceStore
    /// Syntax and reading problems.
    public var diagnostics: [Diagnostic]

    private init(root: Node?, sources: SourceStore, diagnostics: [Diagnostic]) {
        self.root = root
        self.sources = sources
        self.diagnostics = diagnostics
    }

    /// Parses `data` that came from `file`.
    public init(parsing data: Data, file: String) {
        sources = SourceStore()
        sources.add(file: file, text: String(decoding: data, as: UTF8.self))
        do {
            root = try YAMLParser(file: file).parse(data)
            diagnostics = []
        } catch {
            root = nil
            diagnostics = error.diagnostics
        }
    }

    /// Reads and parses the file at `path`; an unreadable file is a diagnostic `<domain>.unreadable`.
    public init(contentsOf path: String, domain: String) {
        do {
            self.init(parsing: try FileReading.read(path), file: path)
        } catch {
            self.init(root: nil, sources: SourceStore(), diagnostics: [
                .error("\(domain).unreadable", "\(error)", hint: "check the \(domain) path"),
            ])
        }
    }
}
