import Foundation
import Basics

/// Expands glob patterns against the file system below a base folder. Symbolic links are
/// followed; a link that leads back into a folder being walked is reported, never walked again,
/// and a link that leads out of `confinement` (or into the kernel's trees) is refused.
public struct GlobWalker {
    /// A problem met while walking that did not stop the walk.
    public struct Warning: Sendable, Hashable {
        /// A stable id such as `plan.symlink-loop`.
        public var id: String
        /// What happened, naming the path.
        public var message: String
        /// How to fix it, for a refusal.
        public var hint: String? = nil
    }

    /// The absolute folder relative patterns start from.
    public let base: String
    /// The real folder (links resolved) that links met on the walk must lead into; nil lets
    /// them lead anywhere but `/proc`, `/sys` and `/dev`.
    public var confinement: String?
    /// How `confinement` is written, for messages and hints.
    public var confinementName = "the manifest's folder"
    private(set) var warnings: [Warning] = []
    /// Links refused since `takeRefusals` was last called.
    private var refusals: [Warning] = []
    // Keyed by bytes: String keys would merge folders whose names are only canonically equivalent.
    private var listings: [[UInt8]: [DirectoryEntry]] = [:]
    /// Listings made ahead on other threads, which `list` takes (and warns about) when it gets there.
    private var prefetched: [[UInt8]: [DirectoryEntry]] = [:]
    private var visited: Set<[UInt8]> = []

    /// Creates a walker rooted at `base` (an absolute path).
    public init(base: String) {
        self.base = base
    }

    /// The files matching `pattern`, as paths relative to `base` (or absolute for absolute patterns).
    public mutating func files(matching pattern: GlobPattern) -> [String] {
        var found: [String] = []
        for segments in pattern.alternatives {
            visited = []
            let root = pattern.isAbsolute ? "" : base
            let prefix = pattern.isAbsolute ? "/" : ""
            let identity = DirectoryListing.identity(pattern.isAbsolute ? "/" : base)
            walk(directory: root, relative: prefix, segments: segments[...], ancestors: identity.map { [$0] } ?? [], into: &found)
        }
        return found
    }

    /// Warnings collected by all walks so far.
    public var collectedWarnings: [Warning] { warnings }

    private mutating func walk(
        directory: String, relative: String, segments: ArraySlice<GlobPattern.Segment>,
        ancestors: [FolderIdentity], into found: inout [String]
    ) {
        guard let segment = segments.first else { return }
        let key = "\(segments.startIndex)\u{0}\(directory)"
        guard visited.insert(Array(key.utf8)).inserted else { return }
        let rest = segments.dropFirst()
        switch segment {
        case .literal(let name):
            let path = directory + "/" + name
            let kind = DirectoryListing.resolve(path)
            if kind != .brokenLink, name != "..", DirectoryListing.isLink(path), !admitsLink(path, shown: relative + name) { return }
            if rest.isEmpty {
                if kind == .file, !RealPath.isSystemTree(RealPath.normalized(path)) { found.append(relative + name) }
            } else if kind == .directory {
                // Going up with '..' leaves the walked folders behind: only folders below count as ancestors.
                let above = name == ".." ? [] : ancestors
                descend(into: path, relative: relative + name + "/", segments: rest, ancestors: above, found: &found)
            }
        case .wildcard(let wildcard):
            let entries = list(directory, relative: relative)
            let matcher = GlobPattern.WildcardMatcher(wildcard)
            if !rest.isEmpty {
                prefetch(entries.filter { $0.kind == .directory && matcher.matches($0.name) }.map { directory + "/" + $0.name })
            }
            for entry in entries where matcher.matches(entry.name) {
                if entry.isLink, entry.kind == .file || (entry.kind == .directory && !rest.isEmpty),
                   !admitsLink(directory + "/" + entry.name, shown: relative + entry.name) { continue }
                if rest.isEmpty {
                    if entry.kind == .file { found.append(relative + entry.name) }
                } else if entry.kind == .directory {
                    descend(into: directory + "/" + entry.name, relative: relative + entry.name + "/",
                            segments: rest, ancestors: ancestors, found: &found)
                }
            }
        case .globstar:
            walk(directory: directory, relative: relative, segments: rest, ancestors: ancestors, into: &found)
            let folders = list(directory, relative: relative).filter { entry in
                entry.kind == .directory && !entry.name.hasPrefix(".")
                    && (!entry.isLink || admitsLink(directory + "/" + entry.name, shown: relative + entry.name))
            }
            prefetch(folders.map { directory + "/" + $0.name })
            for entry in folders {
                descend(into: directory + "/" + entry.name, relative: relative + entry.name + "/",
                        segments: segments, ancestors: ancestors, found: &found)
            }
        }
    }

    private mutating func descend(
        into path: String, relative: String, segments: ArraySlice<GlobPattern.Segment>,
        ancestors: [FolderIdentity], found: inout [String]
    ) {
        guard let identity = DirectoryListing.identity(path) else {
            // Say why a folder is skipped (a path over PATH_MAX, a folder removed during the walk).
            warn("plan.unreadable-folder", "cannot enter folder '\(relative.dropLast())': \(String(cString: strerror(errno))); skipped")
            return
        }
        if ancestors.contains(identity) {
            warn("plan.symlink-loop", "'\(relative.dropLast())' leads back into a folder above it (symbolic link loop); not followed")
            return
        }
        walk(directory: path, relative: relative, segments: segments, ancestors: ancestors + [identity], into: &found)
    }

    private mutating func list(_ directory: String, relative: String) -> [DirectoryEntry] {
        let path = directory.isEmpty ? "/" : directory
        if let cached = listings[Array(path.utf8)] { return cached }
        var entries: [DirectoryEntry]
        do throws(ListingError) {
            if let ready = prefetched.removeValue(forKey: Array(path.utf8)) {
                entries = ready
            } else {
                entries = try DirectoryListing.list(path)
            }
        } catch {
            let shown = relative.isEmpty ? "." : String(relative.dropLast())
            warn("plan.unreadable-folder", "cannot read folder '\(shown)': \(String(cString: strerror(error.code))); skipped")
            entries = []
        }
        for entry in entries where entry.kind == .brokenLink {
            warn("plan.broken-symlink", "'\(relative)\(entry.name)' is a symbolic link to nothing; skipped")
        }
        for entry in entries where entry.kind == .unreadableName {
            warn("plan.unreadable-name", "'\(relative)\(entry.name)' has a name that is not UTF-8; skipped (rename it to plan it)")
        }
        listings[Array(path.utf8)] = entries
        return entries
    }

    /// Lists the folders at `paths` that are not listed yet, on all cores, before the walk goes
    /// into them one by one (a folder that cannot be listed is left for `list` to report).
    private mutating func prefetch(_ paths: [String]) {
        let wanted = paths.filter { listings[Array($0.utf8)] == nil && prefetched[Array($0.utf8)] == nil }
        guard wanted.count > 1 else { return }
        let listed = ParallelWork.map(count: wanted.count, placeholder: [DirectoryEntry]?.none) {
            { index in try? DirectoryListing.list(wanted[index]) }  // list() says why when the walk arrives there
        }
        for (path, entries) in zip(wanted, listed) {
            if let entries { prefetched[Array(path.utf8)] = entries }
        }
    }

    /// Whether the link at `path` leads somewhere inputs may come from; records a refusal if not.
    private mutating func admitsLink(_ path: String, shown: String) -> Bool {
        guard let real = RealPath.of(path) else { return false }
        if RealPath.isSystemTree(real) {
            refuse("'\(shown)' is a symbolic link to '\(real)'; the kernel's /proc, /sys and /dev are never inputs",
                   hint: "files of the kernel's /proc, /sys and /dev are never inputs, whatever 'inputs_root' says: remove the link")
            return false
        }
        if let confinement, !RealPath.isInside(real, confinement) {
            refuse("'\(shown)' is a symbolic link to '\(real)', outside \(confinementName)",
                   hint: "a committed link must not lead out of the project: point it inside, or widen where inputs may come from with 'inputs_root: ..' (relative to the manifest)")
            return false
        }
        return true
    }

    private mutating func refuse(_ message: String, hint: String) {
        let refusal = Warning(id: "plan.link-outside", message: message, hint: hint)
        if !refusals.contains(refusal) { refusals.append(refusal) }
    }

    /// The links refused since the last call, each once.
    public mutating func takeRefusals() -> [Warning] {
        defer { refusals = [] }
        return refusals
    }

    private mutating func warn(_ id: String, _ message: String) {
        let warning = Warning(id: id, message: message)
        if !warnings.contains(warning) { warnings.append(warning) }
    }
}
