import Basics
import Foundation

/// Writes `pipeline init`'s files into a project folder. Every path is checked before anything
/// is written: a file in the way (a dangling link counts) stops it unless forced, and a file or
/// a symbolic link where a folder goes, or a link or folder where `.gitignore` goes, stops it
/// always, so nothing is written outside the folder. A step that fails removes what was written.
struct ProjectWriter {
    /// What one file is made from.
    enum Content {
        case data(Data)
        /// Made with ffmpeg from these source arguments.
        case media([String])
    }

    let root: String
    /// How messages name the project folder (`site/`, or nothing for the current one).
    let shownRoot: String
    let files: [(path: String, content: Content)]

    /// Why the project cannot be written as it stands: files in the way, and paths that no
    /// `--force` makes writable.
    func obstacles() -> (inTheWay: [String], blocked: [String]) {
        var inTheWay: [String] = [], blocked: [String] = []
        var folders = Set<String>()
        for file in files {
            folders.formUnion(Self.folders(of: file.path))
            switch Self.kind(root + "/" + file.path) {
            case nil: continue
            case S_IFREG?, S_IFLNK?: inTheWay.append(file.path)
            default: blocked.append("'\(shownRoot + file.path)' is a folder or a special file")
            }
        }
        for folder in folders.sorted() {
            switch Self.kind(root + "/" + folder) {
            case nil, S_IFDIR?: continue
            case S_IFLNK?: blocked.append("'\(shownRoot + folder)' is a symbolic link; init writes only inside the project folder")
            default: blocked.append("'\(shownRoot + folder)' is a file where a folder goes")
            }
        }
        if let kind = Self.kind(root + "/.gitignore"), kind != S_IFREG {
            blocked.append("'\(shownRoot).gitignore' is \(kind == S_IFLNK ? "a symbolic link" : "not a regular file"); init adds its lines only to a plain file")
        }
        return (inTheWay, blocked)
    }

    /// Why writing stopped, in words.
    struct Failure: Error {
        var message: String
    }

    /// Writes every file and the ignore lines. A file being replaced (`--force`) is moved aside
    /// first; on failure what was written is removed and what was moved aside is put back.
    func write(ignoring lines: [String]) throws(Failure) {
        var made: [String] = []
        var replaced: [(original: String, aside: String)] = []
        func undo() {
            for path in made.reversed() { _ = remove(path) }
            for file in replaced.reversed() { _ = rename(file.aside, file.original) }
        }
        func fail(_ message: String) -> Failure {
            undo()
            return Failure(message: message + "; nothing was changed")
        }
        for file in files {
            let path = root + "/" + file.path
            for folder in Self.folders(of: file.path) where Self.kind(root + "/" + folder) == nil {
                guard mkdir(root + "/" + folder, 0o755) == 0 else { throw fail(FileError(path: folder, operation: "make the folder", code: errno).description) }
                made.append(root + "/" + folder)
            }
            if Self.kind(path) != nil {
                let aside = FolderPath.of(path) + "/.\((path as NSString).lastPathComponent).init-\(getpid())"
                guard rename(path, aside) == 0 else { throw fail(FileError(path: file.path, operation: "replace", code: errno).description) }
                replaced.append((path, aside))
            }
            do {
                switch file.content {
                case .data(let data): try AtomicFile.write(data, to: path)
                case .media(let source): try SampleFiles.media(path, source: source)
                }
            } catch let error as SampleFiles.SampleError {
                throw fail(error.message)
            } catch {
                throw fail("\(error)")
            }
            made.append(path)
        }
        do { try Self.ignore(lines, in: root + "/.gitignore") } catch { throw fail("\(error)") }
        for file in replaced { _ = remove(file.aside) }
    }

    /// Adds the `lines` (such as `.pipeline/`) missing from the ignore file, however they are
    /// spelt there (`/.pipeline`, `.pipeline`…), with the file's own line endings. Its bytes
    /// are kept as they are (whatever their encoding); one that cannot be read is an error, never
    /// a file to write over.
    static func ignore(_ lines: [String], in path: String) throws {
        let bytes = try FileSystem.readIfPresent(path) ?? Data()
        let existing = String(decoding: bytes, as: UTF8.self)
        // Git ignores trailing spaces but not leading ones; a `!` line is the user's choice to keep.
        func normalized(_ line: some StringProtocol) -> String {
            var entry = String(line)
            while entry.last?.isWhitespace == true { entry.removeLast() }
            if entry.hasPrefix("!") { entry.removeFirst() }
            while entry.hasPrefix("/") { entry.removeFirst() }
            while entry.hasSuffix("/") { entry.removeLast() }
            return entry
        }
        let present = Set(existing.split(whereSeparator: \.isNewline).map(normalized))
        let missing = lines.filter { !present.contains(normalized($0)) }
        guard !missing.isEmpty else { return }
        let newline = existing.contains("\r\n") ? "\r\n" : "\n"
        let separator = existing.last?.isNewline ?? true ? "" : newline
        try AtomicFile.write(bytes + Data((separator + missing.joined(separator: newline) + newline).utf8), to: path)
    }

    /// `a`, `a/b` for `a/b/file`.
    private static func folders(of path: String) -> [String] {
        let parts = path.split(separator: "/").map(String.init)
        return (1..<max(1, parts.count)).map { parts.prefix($0).joined(separator: "/") }
    }

    /// The file type at `path` itself (a link is not followed), or nil when nothing is there.
    private static func kind(_ path: String) -> mode_t? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT
    }
}
