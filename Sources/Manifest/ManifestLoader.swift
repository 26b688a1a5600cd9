import Foundation
import PipelineCore
import YAML

/// Reads a manifest file and turns it into a typed `Manifest`, collecting every problem.
public struct ManifestLoader: Sendable {
    /// The variables `${VAR}` refers to.
    public var environment: [String: String]
    /// Whether the credentials in `auth` must resolve now (`run`), or may stay unset (`plan`).
    public var requiresCredentials: Bool

    /// Creates a loader.
    public init(environment: [String: String], requiresCredentials: Bool = false) {
        self.environment = environment
        self.requiresCredentials = requiresCredentials
    }

    /// Loads the manifest at `path` (relative to the current folder or absolute).
    public func load(path: String) -> Loaded<Manifest> {
        var sources = SourceStore()
        let data: Data
        do {
            data = try FileReading.read(path)
        } catch {
            return Loaded(value: nil, diagnostics: [.error(
                "manifest.unreadable", "\(error)", hint: "check the manifest path")], sources: sources)
        }
        sources.add(file: path, text: String(decoding: data, as: UTF8.self))
        return Loaded(value: nil, diagnostics: [], sources: sources).merging(decode(data, file: path))
    }

    /// Parses and decodes manifest text that came from `file`.
    public func decode(_ data: Data, file: String) -> Loaded<Manifest> {
        var sources = SourceStore()
        sources.add(file: file, text: String(decoding: data, as: UTF8.self))
        let root: Node?
        do {
            root = try YAMLParser(file: file).parse(data)
        } catch {
            return Loaded(value: nil, diagnostics: error.diagnostics, sources: sources)
        }
        guard let root else {
            return Loaded(value: nil, diagnostics: [.error(
                "manifest.empty", "the manifest is empty",
                at: SourceLocation(file: file, line: 1, column: 1),
                hint: "start with 'version: 1' and an 'assemblies:' mapping; see examples/")], sources: sources)
        }
        let decoder = NodeDecoder(environment: environment, sources: sources)
        let directory = URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL.path
        var reader = ManifestReader(decoder: decoder, file: file, directory: directory, requiresCredentials: requiresCredentials)
        let manifest = reader.read(root)
        let diagnostics = decoder.diagnostics
        return Loaded(value: diagnostics.containsErrors ? nil : manifest, diagnostics: diagnostics, sources: sources)
    }
}

extension Loaded {
    /// This outcome's sources and diagnostics followed by `other`'s, with `other`'s value.
    public func merging(_ other: Loaded<Value>) -> Loaded<Value> {
        var sources = self.sources
        sources.merge(other.sources)
        return Loaded(value: other.value, diagnostics: diagnostics + other.diagnostics, sources: sources)
    }
}
