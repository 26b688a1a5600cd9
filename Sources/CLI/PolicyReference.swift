import Basics
import Foundation
import Spec

/// Whether a manifest's `policy:` already names a file `policy suggest` wrote, for the line that
/// follows "wrote FILE": nothing to do, or the `policy:` line that would name it.
struct PolicyReference {
    let manifest: Manifest
    /// The written file, as given on the command line.
    let written: String

    /// `; the manifest's 'policy: X' names it`, or how to point the manifest at it.
    var advice: String {
        let target = Self.resolved(written, in: FileManager.default.currentDirectoryPath)
        let shown = Self.relative(target, to: Self.resolved(manifest.directory, in: FileManager.default.currentDirectoryPath))
        guard let named = manifest.policy?.value else {
            return "; point the manifest at it with 'policy: \(TerminalText.printable(shown))'"
        }
        if !named.contains("://"), Self.resolved(named, in: manifest.directory) == target {
            return ", which the manifest's 'policy: \(TerminalText.printable(named))' names"
        }
        return "; the manifest names 'policy: \(TerminalText.printable(named))': to use this one, write 'policy: \(TerminalText.printable(shown))'"
    }

    /// `path` (relative to `folder` unless absolute) without `.`, `..` or symbolic links.
    static func resolved(_ path: String, in folder: String) -> String {
        let absolute = path.hasPrefix("/") ? path : folder + "/" + path
        return URL(fileURLWithPath: absolute).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// `path` relative to `folder` when it is inside it, else as it is.
    static func relative(_ path: String, to folder: String) -> String {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
