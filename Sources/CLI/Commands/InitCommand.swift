import Basics
import Foundation

/// `pipeline init`: writes a project that runs at once on the local engine.
struct InitCommand: Command {
    static let spec = CommandSpec(
        name: "init",
        summary: "Start a project: a commented manifest, a policy and a CI workflow, ready to run on the local engine.",
        discussion: """
        Writes pipeline.yml, policy.yml and .github/workflows/pipeline.yml (plan on pull requests, run on \
        main) into DIR, and adds .pipeline/ and build/ to its .gitignore. The manifest processes the folder's \
        own files of the kind; when it has none, a few samples are made in samples/ (media samples with \
        ffmpeg). Nothing is ever overwritten unless --force: a file in the way is named and nothing is written.
        """,
        arguments: [.init(name: "DIR", help: "The project folder (default: the current one; made when missing).", optional: true)],
        options: [
            .init(name: "kind", valueName: "KIND", help: "images (default), media or documents.", choices: ProjectTemplate.Kind.allCases.map(\.rawValue)),
            .init(name: "force", help: "Overwrite files that are in the way."),
        ],
        examples: ["pipeline init", "pipeline init site --kind images", "pipeline init talks --kind media && cd talks && pipeline run pipeline.yml"])

    let arguments: InitArguments
    private var directory: String { arguments.directory }
    private var kind: ProjectTemplate.Kind { arguments.kind }
    private var force: Bool { arguments.force }

    init(_ arguments: InitArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let view = InitView(directory: directory)
        let absolute = RealPath.normalized(directory)
        if let problem = Self.makeFolder(absolute) {
            view.cannotMakeFolder(problem, context: context)
            return ExitCode.failure
        }
        let name = Self.projectName(absolute.split(separator: "/").last.map(String.init) ?? "")
        let ownFiles = Self.hasFiles(in: absolute, extensions: ProjectTemplate.extensions(of: kind))
        var template = ProjectTemplate(kind: kind, name: name, usesSamples: !ownFiles)
        if kind == .media, ownFiles {
            // A job only for the files there are: a job that matches none fails `plan`.
            template.hasVideo = Self.hasFiles(in: absolute, extensions: ProjectTemplate.videoExtensions)
            template.hasAudio = Self.hasFiles(in: absolute, extensions: ProjectTemplate.audioExtensions)
        }
        var files: [(path: String, data: Data)] = [
            ("pipeline.yml", Data(template.manifest.utf8)), ("policy.yml", Data(template.policy.utf8)),
            (".github/workflows/pipeline.yml", Data(ProjectTemplate.workflow.utf8)),
        ]
        if !ownFiles {
            switch kind {
            case .images:
                for (index, sample) in ["sunrise", "forest", "ocean"].enumerated() {
                    files.append(("samples/\(sample).png", SampleFiles.png(width: 640, height: 400, hue: Double(index) / 3 + 0.05)))
                }
            case .documents:
                files.append(("samples/brochure.pdf", SampleFiles.pdf(title: name + " brochure", pages: 3)))
                files.append(("samples/report.pdf", SampleFiles.pdf(title: name + " report", pages: 2)))
            case .media:
                guard SampleFiles.hasFFmpeg(path: context.environment["PATH"]) else {
                    view.noFFmpeg(context: context)
                    return ExitCode.failure
                }
            }
        }
        let media: [(path: String, content: ProjectWriter.Content)] = kind == .media && !ownFiles ? [
            ("samples/clip.mp4", .media(["-f", "lavfi", "-i", "testsrc=duration=3:size=640x360:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
                                         "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])),
            ("samples/chime.ogg", .media(["-f", "lavfi", "-i", "sine=frequency=660:duration=2", "-c:a", "libvorbis"])),
        ] : []
        let writer = ProjectWriter(root: absolute, shownRoot: directory == "." ? "" : TerminalText.printable(directory) + "/", files: files.map { ($0.path, .data($0.data)) } + media)
        // Everything in the way is named before anything is written.
        let (inTheWay, blocked) = writer.obstacles()
        if !blocked.isEmpty {
            view.blocked(blocked, context: context)
            return ExitCode.failure
        }
        if !inTheWay.isEmpty, !force {
            view.inTheWay(inTheWay, context: context)
            return ExitCode.failure
        }
        do throws(ProjectWriter.Failure) {
            try writer.write(ignoring: [".pipeline/", "build/"])
        } catch {
            view.failure(error.message, context: context)
            return ExitCode.failure
        }
        view.wrote(
            writer.files.map(\.path), processes: ownFiles ? "the manifest processes the folder's own \(kind.rawValue)" : "with samples to process",
            leftOut: leftOutNote(Self.leftOut(in: absolute, besides: kind), ownFiles: ownFiles), context: context)
        return ExitCode.success
    }

    /// Files of another kind that the folder holds and no job processes: what they are, how many, one name.
    struct LeftOut: Equatable {
        let noun: String
        let kind: ProjectTemplate.Kind
        var count: Int
        var example: String
    }

    /// What `init` leaves out and how to include it, said rather than silently ignored; empty when nothing is.
    private func leftOutNote(_ leftOut: [LeftOut], ownFiles: Bool) -> String {
        guard !leftOut.isEmpty else { return "" }
        let found = leftOut.map { "\(plural($0.count, $0.noun)) (\($0.count == 1 ? "" : "such as ")\(TerminalText.printable($0.example)))" }
        var note = "Left out, in no job: \(found.joined(separator: ", ")); the manifest processes \(ownFiles ? "" : "sample ")\(kind.rawValue) only.\n"
        let folder = directory == "." ? "" : " " + Self.shellQuoted(directory)
        for other in ProjectTemplate.Kind.allCases where leftOut.contains(where: { $0.kind == other }) {
            note += ownFiles
                ? "  To process the \(other.rawValue) too, add a job for them to pipeline.yml (`pipeline init --kind \(other.rawValue)` in an empty folder writes one to copy).\n"
                : "  To process the \(other.rawValue) instead of samples: pipeline init\(folder) --kind \(other.rawValue) --force\n"
        }
        return note
    }

    /// The files of the kinds other than `kind` in `folder` (skipping what `hasFiles` skips), by noun.
    static func leftOut(in folder: String, besides kind: ProjectTemplate.Kind) -> [LeftOut] {
        let groups: [(noun: String, kind: ProjectTemplate.Kind, extensions: [String])] = [
            ("image", .images, ProjectTemplate.imageExtensions), ("video", .media, ProjectTemplate.videoExtensions),
            ("audio file", .media, ProjectTemplate.audioExtensions), ("PDF", .documents, ProjectTemplate.extensions(of: .documents)),
        ].filter { $0.kind != kind }
        var found: [LeftOut] = []
        walk(folder) { path in
            let ext = (path as NSString).pathExtension.lowercased()
            guard let group = groups.first(where: { $0.extensions.contains(ext) }) else { return false }
            if let index = found.firstIndex(where: { $0.noun == group.noun }) {
                found[index].count += 1
            } else {
                found.append(LeftOut(noun: group.noun, kind: group.kind, count: 1, example: path))
            }
            return false
        }
        return groups.compactMap { group in found.first { $0.noun == group.noun } }
    }

    /// `path` as one shell word, safe to paste: plain when it is, else in single quotes, or in
    /// `$'…'` with escapes when it holds control characters (a leading dash gets `./`).
    static func shellQuoted(_ path: String) -> String {
        let prefixed = path.hasPrefix("-") ? "./" + path : path
        if prefixed.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._/-+,".contains($0)) }) { return prefixed }
        guard prefixed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return "'" + prefixed.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        // Control characters (a newline, a tab) in bash's $'…' form, which prints and pastes as text.
        var quoted = "$'"
        for scalar in prefixed.unicodeScalars {
            switch scalar {
            case "\\", "'": quoted += "\\" + String(scalar)
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: quoted += String(format: "\\x%02x", scalar.value)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "'"
    }

    /// Makes `path` and the folders above it as needed; why not, when it cannot.
    static func makeFolder(_ path: String) -> String? {
        var current = ""
        for part in path.split(separator: "/") {
            current += "/" + part
            var status = stat()
            if stat(current, &status) == 0 {
                if status.st_mode & S_IFMT != S_IFDIR { return "'\(current)' is a file, not a folder" }
                continue
            }
            guard mkdir(current, 0o755) == 0 || errno == EEXIST else { return FileError(path: current, operation: "make", code: errno).description }
        }
        return nil
    }

    /// A manifest name from a folder name: letters, digits, '-' and '_'.
    static func projectName(_ folder: String) -> String {
        let cleaned = String(folder.lowercased().map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
            .trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return cleaned.isEmpty ? "project" : String(cleaned.prefix(60))
    }

    /// Whether the folder (outside hidden folders, build/ and node_modules/) has a file with one of `extensions`.
    static func hasFiles(in folder: String, extensions: [String]) -> Bool {
        var found = false
        walk(folder) { path in
            found = extensions.contains((path as NSString).pathExtension.lowercased())
            return found
        }
        return found
    }

    /// Calls `visit` with the folder's paths (relative, the first 100,000, outside hidden folders,
    /// build/, node_modules/ and samples/) until it returns true.
    private static func walk(_ folder: String, _ visit: (String) -> Bool) {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return }
        var seen = 0
        while let path = walker.nextObject() as? String, seen < 100_000 {
            seen += 1
            let last = (path as NSString).lastPathComponent
            if last.hasPrefix(".") || ["build", "node_modules", "samples"].contains(path) {
                walker.skipDescendants()
                continue
            }
            if visit(path) { return }
        }
    }
}
