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

    let directory: String
    let kind: ProjectTemplate.Kind
    let force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        directory = arguments.positionals.first ?? "."
        let name = arguments.value("kind") ?? "images"
        guard let kind = ProjectTemplate.Kind(rawValue: name) else {
            throw UsageError("--kind must be images, media or documents, not '\(name)'", command: Self.spec.name)
        }
        self.kind = kind
        force = arguments.flag("force")
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let output = context.output
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            output.failure("cannot make the folder '\(directory)': \((error as NSError).localizedDescription)")
            return ExitCode.failure
        }
        let absolute = URL(fileURLWithPath: directory).standardizedFileURL.path
        let name = Self.projectName(URL(fileURLWithPath: absolute).lastPathComponent)
        let ownFiles = Self.hasFiles(in: absolute, extensions: ProjectTemplate.extensions(of: kind))
        let template = ProjectTemplate(kind: kind, name: name, usesSamples: !ownFiles)
        var files: [(path: String, data: Data)] = [
            ("pipeline.yml", Data(template.manifest.utf8)), ("policy.yml", Data(template.policy.utf8)),
            (".github/workflows/pipeline.yml", Data(ProjectTemplate.workflow.utf8)),
        ]
        var media: [(path: String, source: [String])] = []
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
                media = [
                    ("samples/clip.mp4", ["-f", "lavfi", "-i", "testsrc=duration=3:size=640x360:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
                                          "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"]),
                    ("samples/chime.ogg", ["-f", "lavfi", "-i", "sine=frequency=660:duration=2", "-c:a", "libvorbis"]),
                ]
            }
        }
        // Everything in the way is named before anything is written.
        let wanted = files.map(\.path) + media.map(\.path)
        let inTheWay = wanted.filter { FileManager.default.fileExists(atPath: absolute + "/" + $0) }
        if !inTheWay.isEmpty, !force {
            output.failure("\(inTheWay.map { "'\(directory == "." ? $0 : directory + "/" + $0)'" }.joined(separator: ", ")) already \(inTheWay.count == 1 ? "exists" : "exist"); nothing was written",
                           hint: "move \(inTheWay.count == 1 ? "it" : "them") away, or pass --force to overwrite")
            return ExitCode.failure
        }
        do {
            for file in files {
                try FileManager.default.createDirectory(atPath: absolute + "/" + (file.path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try AtomicFile.write(file.data, to: absolute + "/" + file.path)
            }
            for sample in media {
                try FileManager.default.createDirectory(atPath: absolute + "/samples", withIntermediateDirectories: true)
                try SampleFiles.media(absolute + "/" + sample.path, source: sample.source)
            }
            try Self.ignore([".pipeline/", "build/"], in: absolute + "/.gitignore")
        } catch let error as SampleFiles.SampleError {
            output.failure(error.message, hint: "or put your own media files in the folder and run 'pipeline init --force' again")
            return ExitCode.failure
        } catch {
            output.failure("cannot write the project into '\(directory)': \(error)")
            return ExitCode.failure
        }
        let enter = directory == "." ? "" : "  cd \(directory)\n"
        output.out("""
            Wrote \(wanted.joined(separator: ", ")) and .gitignore (\(ownFiles ? "the manifest processes the folder's own \(kind.rawValue)" : "with samples to process")).
            Next:
            \(enter)  pipeline plan pipeline.yml     # what would run
              pipeline run pipeline.yml      # run it on this machine; results in build/

            """)
        return ExitCode.success
    }

    /// A manifest name from a folder name: letters, digits, '-' and '_'.
    static func projectName(_ folder: String) -> String {
        let cleaned = String(folder.lowercased().map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
            .trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return cleaned.isEmpty ? "project" : String(cleaned.prefix(60))
    }

    /// Whether the folder (outside hidden folders, build/ and node_modules/) has a file with one of `extensions`.
    static func hasFiles(in folder: String, extensions: [String]) -> Bool {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return false }
        var seen = 0
        while let path = walker.nextObject() as? String, seen < 100_000 {
            seen += 1
            let last = (path as NSString).lastPathComponent
            if last.hasPrefix(".") || ["build", "node_modules", "samples"].contains(path) {
                walker.skipDescendants()
                continue
            }
            if extensions.contains((last as NSString).pathExtension.lowercased()) { return true }
        }
        return false
    }

    /// Adds the `lines` missing from the ignore file (made when missing).
    static func ignore(_ lines: [String], in path: String) throws {
        let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let present = Set(existing.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let missing = lines.filter { !present.contains($0) && !present.contains("/" + $0) }
        guard !missing.isEmpty else { return }
        let separator = existing.isEmpty || existing.hasSuffix("\n") ? "" : "\n"
        try AtomicFile.write(Data((existing + separator + missing.joined(separator: "\n") + "\n").utf8), to: path)
    }
}
