import Foundation
import Basics
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
        // A manifest that is a link out of its own folder (a committed `pipeline.yml -> ~/.git-credentials`)
        // is not read: its errors would print the other file's lines.
        let folder = FolderPath.of(path)
        let real = RealPath.of(path)
        // Its folder is the project: never the kernel's (`/dev/stdin`, `/proc/self/fd/0`).
        if RealPath.isSystemTree(RealPath.normalized(path)) || real.map(RealPath.isSystemTree) == true {
            return Loaded(value: nil, diagnostics: [.error(
                "manifest.system-path", "'\(path)' is in the kernel's /proc, /sys or /dev, which is no project folder; not read",
                hint: "save the manifest as a file in the project's folder, such as pipeline.yml, and name that file")], sources: SourceStore())
        }
        if let real, let root = RealPath.of(folder.isEmpty ? "." : folder), !RealPath.isInside(real, root) {
            return Loaded(value: nil, diagnostics: [.error(
                "manifest.outside-project", "'\(path)' is a link to '\(real)', outside its folder; not read",
                hint: "name the manifest itself, not a link to a file elsewhere")], sources: SourceStore())
        }
        return decode(YAMLDocument(contentsOf: path, domain: "manifest"), file: path)
    }

    /// Parses and decodes manifest text that came from `file`.
    public func decode(_ data: Data, file: String) -> Loaded<Manifest> {
        decode(YAMLDocument(parsing: data, file: file), file: file)
    }

    private func decode(_ document: YAMLDocument, file: String) -> Loaded<Manifest> {
        let sources = document.sources
        guard document.diagnostics.isEmpty else { return Loaded(value: nil, diagnostics: document.diagnostics, sources: sources) }
        guard let root = document.root else {
            return Loaded(value: nil, diagnostics: [.error(
                "manifest.empty", "the manifest is empty",
                at: SourceLocation(file: file, line: 1, column: 1),
                hint: "start with 'version: 1' and an 'assemblies:' mapping; 'pipeline init' writes a project to start from")], sources: sources)
        }
        let decoder = NodeDecoder(environment: environment, sources: sources)
        decoder.credentialVariables = AuthReader.credentialVariables(in: root)
        decoder.secretVariables = AuthReader.secretVariables(in: root)
        decoder.refusesCredentialLikeNames = true
        let directory = FolderPath.of(RealPath.normalized(file))
        var reader = ManifestReader(decoder: decoder, file: file, directory: directory, requiresCredentials: requiresCredentials)
        let manifest = reader.read(root)
        var diagnostics = decoder.diagnostics
        // A manifest with errors goes no further, so what the local engine would refuse is said now,
        // with them, rather than after they are fixed (a valid one is checked by the planning session).
        if diagnostics.containsErrors, let manifest, Endpoint.of(manifest, override: nil, environment: environment) == .local {
            diagnostics += manifest.localEngineProblems(environment: environment)
        }
        // What was read despite the errors is kept, so the policy can judge it with them.
        let errors = diagnostics.containsErrors
        return Loaded(value: errors ? nil : manifest, diagnostics: diagnostics, sources: sources, partial: errors ? manifest : nil)
    }
}
