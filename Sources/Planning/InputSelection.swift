import Foundation
import Spec
import Basics

/// Chooses a job's files: positive patterns add, `!` patterns remove, and a pattern that matches
/// nothing is an error unless the job allows it.
enum InputSelection {
    static func select(job: Job, walker: inout GlobWalker, diagnostics: inout [Diagnostic]) -> [String] {
        var included: [String] = []
        var exclusions: [GlobPattern] = []
        let areas = downloadAreas(of: job, base: walker.base)
        for input in job.inputs {
            let negated = input.value.hasPrefix("!")
            let text = negated ? String(input.value.dropFirst()) : input.value
            let pattern: GlobPattern
            do {
                pattern = try GlobPattern(text)
            } catch {
                diagnostics.append(.error("plan.bad-pattern", error.message, at: input.location, hint: error.hint))
                continue
            }
            if pattern.escapesBase, !job.allowOutside, !negated {
                diagnostics.append(.error(
                    "plan.outside-folder", "pattern '\(text)' reaches outside the manifest's folder", at: input.location,
                    hint: "keep inputs below the manifest's folder, or set 'allow_outside: true' on job '\(job.name.value)'"))
                continue
            }
            if !negated, text.split(separator: "/").contains(".git") {
                diagnostics.append(.error(
                    "plan.git-folder", "pattern '\(text)' names git's own folder, whose files are never inputs", at: input.location,
                    hint: "remove the pattern: .git/config holds the checkout's credentials on CI"))
                continue
            }
            if pattern.isAbsolute, !negated, RealPath.isSystemTree(RealPath.normalized(text)) {
                diagnostics.append(.error(
                    "plan.system-path", "pattern '\(text)' names the kernel's files; /proc, /sys and /dev are never inputs", at: input.location,
                    hint: "remove the pattern; inputs are regular files of the project"))
                continue
            }
            if negated {
                exclusions.append(pattern)
                continue
            }
            if let area = pattern.fixedPrefixes.lazy.compactMap({ prefix in areas.first { RealPath.isInside(prefix, $0.folder) } }).first {
                diagnostics.append(.error(
                    "plan.inputs-in-downloads", "pattern '\(text)' names files in '\(area.folder)', where job '\(job.name.value)' downloads the results of step '\(area.step)', which would replace them",
                    at: input.location, hint: "download the job's results into another folder, such as 'download: build/\(job.name.value)'"))
                continue
            }
            let files = walker.files(matching: pattern)
            let refusals = walker.takeRefusals()
            for refusal in refusals {
                diagnostics.append(.error(refusal.id, refusal.message + "; not planned", at: input.location, hint: refusal.hint))
            }
            // A pattern whose only matches were refused just above does not also "match no files".
            if files.isEmpty, !job.allowEmpty, refusals.isEmpty {
                diagnostics.append(Self.nothingMatched(text, job: job.name.value, at: input.location, walker: &walker))
            }
            included += files
        }
        // The job's own downloads are its outputs, never its inputs (a '**' pattern would take them).
        included = Self.sortedUnique(included).filter { path in !areas.contains { RealPath.isInside(path, $0.folder) } }
        guard !exclusions.isEmpty else { return included }
        let kept = included.filter { path in
            let segments = path.split(separator: "/")
            return !exclusions.contains { $0.matches(segments) }
        }
        if kept.isEmpty, !included.isEmpty, !job.allowEmpty {
            diagnostics.append(.error(
                "plan.no-match", "the '!' patterns of job '\(job.name.value)' exclude every file", at: job.name.location,
                hint: "narrow the '!' patterns, or set 'allow_empty: true' if that is expected"))
        }
        return kept
    }

    /// The folders, relative to `base`, into which the job downloads each step's results
    /// (`download/<step>`); none without `download:` or when it lies outside `base`.
    static func downloadAreas(of job: Job, base: String) -> [(folder: String, step: String)] {
        guard let download = job.download?.value,
              let folder = RealPath.relative(download.hasPrefix("/") ? download : base + "/" + download, inside: base) else { return [] }
        return job.steps.map { step in
            ((folder == "." ? "" : folder + "/") + FileNames.safeComponent(step.name.value), step.name.value)
        }
    }

    /// Why `text` gave no file: it names something that is no regular file, or it matches nothing.
    static func nothingMatched(_ text: String, job: String, at location: SourceLocation?, walker: inout GlobWalker) -> Diagnostic {
        if let kind = nonFileKind(of: text, base: walker.base) {
            return .error(
                "plan.not-a-file", "'\(text)' is \(kind), not a regular file; only regular files are inputs", at: location,
                hint: kind == "a folder" ? "to take the files inside it, write '\(text)/**'"
                    : "name the files to process; set 'allow_empty: true' on job '\(job)' if no file here is expected")
        }
        return .error(
            "plan.no-match", "pattern '\(text)' matches no files", at: location,
            hint: otherCase(of: text, walker: &walker).map {
                "patterns are case-sensitive, and '\($0)' differs from it only in case: match both, as in '*.{jpg,JPG}'"
            } ?? "patterns are relative to the manifest's folder (\(walker.base)); set 'allow_empty: true' on job '\(job)' if that is expected")
    }

    /// What a pattern without wildcards names when it is there but no regular file: "a FIFO", "a folder"...
    static func nonFileKind(of text: String, base: String) -> String? {
        guard !text.contains(where: { "*?[{".contains($0) }) else { return nil }
        var info = stat()
        guard stat(text.hasPrefix("/") ? text : base + "/" + text, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "of another kind"
        }
    }

    /// A file the pattern would match in another case (all upper or all lower), for the hint.
    static func otherCase(of text: String, walker: inout GlobWalker) -> String? {
        // The extension's case only (`photos/*.jpg` against `photos/IMG_1.JPG`), else the whole name's.
        let name = text.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? text
        let folder = String(text.dropLast(name.count))
        let dot = name.lastIndex(of: ".")
        let variants = dot.map { dot in
            [String(name[..<dot]) + name[dot...].uppercased(), String(name[..<dot]) + name[dot...].lowercased()]
        } ?? [name.uppercased(), name.lowercased()]
        for variant in variants.map({ folder + $0 }) where variant != text {
            guard let pattern = try? GlobPattern(variant), let found = walker.files(matching: pattern).first else { continue }  // a hint only
            return found
        }
        return nil
    }

    /// `paths` in byte order, each once (by bytes: names that only look alike are two files).
    static func sortedUnique(_ paths: [String]) -> [String] {
        // One pattern's walk lists its files in order already: then checking is all it costs.
        if paths.indices.dropFirst().allSatisfy({ ByteOrder.precedes(paths[$0 - 1], paths[$0]) }) { return paths }
        var sorted = paths.sorted(by: ByteOrder.precedes)
        var write = 0
        for read in sorted.indices where write == 0 || !ByteOrder.same(sorted[read], sorted[write - 1]) {
            sorted.swapAt(write, read)
            write += 1
        }
        sorted.removeSubrange(write...)
        return sorted
    }
}
