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
    let files: [(path: String, content: Content)]
    let force: Bool

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
            default: blocked.append("'\(file.path)' is a folder or a special file")
            }
        }
        for folder in folders.sorted() {
            switch Self.kind(root + "/" + folder) {
            case nil, S_IFDIR?: continue
            case S_IFLNK?: blocked.append("'\(folder)' is a symbolic link; init writes only inside the project folder")
            default: blocked.append("'\(folder)' is a file where a folder goes")
            }
        }
        if let kind = Self.kind(root + "/.gitignore"), kind != S_IFREG {
            blocked.append("'.gitignore' is \(kind == S_IFLNK ? "a symbolic link" : "not a regular file"); init adds its lines only to a plain file")
        }
        return (inTheWay, blocked)
    }

    /// Why writing stopped, in words.
    struct Failure: Error {
        var message: String
    }

    /// Writes every file and the ignore lines; on failure, what it wrote is removed again.
    func write(ignoring lines: [String]) throws(Failure) {
        var made: [String] = []
        func undo() { for path in made.reversed() { _ = remove(path) } }
        for file in files {
            let path = root + "/" + file.path
            for folder in Self.folders(of: file.path) where Self.kind(root + "/" + folder) == nil {
                guard mkdir(root + "/" + folder, 0o755) == 0 else {
                    undo()
                    throw Failure(message: FileError(path: folder, operation: "make the folder", code: errno).description)
                }
                made.append(root + "/" + folder)
            }
            let existed = Self.kind(path) != nil
            do {
                switch file.content {
                case .data(let data): try AtomicFile.write(data, to: path)
                case .media(let source): try SampleFiles.media(path, source: source)
                }
            } catch let error as SampleFiles.SampleError {
                undo()
                throw Failure(message: error.message)
            } catch {
                undo()
                throw Failure(message: "\(error)")
            }
            if !existed { made.append(path) }
        }
        do { try Self.ignore(lines, in: root + "/.gitignore") } catch {
            undo()
            throw Failure(message: "\(error)")
        }
    }

    /// Adds the `lines` (such as `.pipeline/`) missing from the ignore file, however they are
    /// spelt there (`/.pipeline`, `.pipeline`…), with the file's own line endings.
    static func ignore(_ lines: [String], in path: String) throws {
        let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        func normalized(_ line: some StringProtocol) -> String {
            var entry = line.trimmingCharacters(in: .whitespacesAndNewlines)
            while entry.hasPrefix("/") { entry.removeFirst() }
            while entry.hasSuffix("/") { entry.removeLast() }
            return entry
        }
        let present = Set(existing.split(whereSeparator: \.isNewline).map(normalized))
        let missing = lines.filter { !present.contains(normalized($0)) }
        guard !missing.isEmpty else { return }
        let newline = existing.contains("\r\n") ? "\r\n" : "\n"
        let separator = existing.last?.isNewline ?? true ? "" : newline
        try AtomicFile.write(Data((existing + separator + missing.joined(separator: newline) + newline).utf8), to: path)
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
