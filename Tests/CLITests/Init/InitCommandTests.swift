import Basics
@testable import CLI
import Foundation
import TestSupport
import XCTest

/// `pipeline init` through the binary: what it writes validates and runs on the local engine, it
/// never overwrites without --force, and it uses the folder's own files when there are some.
final class InitCommandTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory(prefix: "init") }
    override func tearDown() { directory.remove() }

    private func pipeline(_ arguments: [String], in folder: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run(ProcessRunner.pipelineExecutable, arguments, in: folder ?? directory.path, environment: ["TRANSLOADIT_SECRET": ""])
    }

    func testEachKindWritesAProjectThatValidatesAndRuns() throws {
        for (kind, results) in [("images", 3), ("documents", 5), ("media", 3)] {
            let made = try pipeline(["init", kind, "--kind", kind])
            XCTAssertEqual(made.status, 0, made.stderr)
            XCTAssertTrue(made.stdout.contains("pipeline run pipeline.yml"), made.stdout)
            let project = directory.path + "/" + kind
            for file in ["pipeline.yml", "policy.yml", ".github/workflows/pipeline.yml", ".gitignore"] {
                XCTAssertTrue(FileManager.default.fileExists(atPath: project + "/" + file), "\(kind): \(file)")
            }
            let validated = try pipeline(["validate", "pipeline.yml"], in: project)
            XCTAssertEqual(validated.status, 0, "\(kind): \(validated.stderr)")
            let run = try pipeline(["run", "pipeline.yml"], in: project)
            XCTAssertEqual(run.status, 0, "\(kind): \(run.stderr)")
            let json = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: project + "/build/results.json")))
            let files = (json["assemblies"]?.arrayValue ?? []).flatMap { ($0["results"]?.objectValue ?? [:]).values.flatMap { $0.arrayValue ?? [] } }
            XCTAssertEqual(files.count, results, "\(kind): \(json.serialized())")
        }
        // The samples are real files, as ffprobe reads them.
        let probed = try ProcessRunner.run("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                                                              directory.path + "/images/samples/ocean.png"])
        XCTAssertEqual(probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "640,400")
        let workflow = try String(contentsOfFile: directory.path + "/images/.github/workflows/pipeline.yml", encoding: .utf8)
        XCTAssertTrue(workflow.contains("pipeline plan pipeline.yml --format markdown >> \"$GITHUB_STEP_SUMMARY\""), workflow)
        XCTAssertTrue(workflow.contains("pipeline run pipeline.yml"), workflow)
        // The run job saves its state right after the run, whatever its outcome (a failed run's
        // finished Assemblies are kept), under a key that is a hash of that state; the plan job
        // only restores, and nothing uses actions/cache (which saves only when the job succeeds).
        let save = """
                  - uses: actions/cache/save@v4
                    if: always()
                    with:
                      path: |
                        .pipeline/
                        build/results.json
                      key: pipeline-state-${{ hashFiles('build/results.json', '.pipeline/manifests/**') }}

            """
        let runJob = try XCTUnwrap(workflow.range(of: "\n  run:\n"), workflow)
        let runStep = try XCTUnwrap(workflow.range(of: "      - run: pipeline run pipeline.yml\n"), workflow)
        let saveStep = try XCTUnwrap(workflow.range(of: save), workflow)
        let report = try XCTUnwrap(workflow.range(of: "pipeline report pipeline.yml"), workflow)
        XCTAssertTrue(runJob.upperBound < runStep.lowerBound && runStep.upperBound < saveStep.lowerBound && saveStep.upperBound < report.lowerBound, workflow)
        XCTAssertFalse(workflow[..<runJob.lowerBound].contains("actions/cache/save"), "the plan job restores only: \(workflow)")
        XCTAssertFalse(workflow.contains("actions/cache@"), workflow)
        XCTAssertEqual(workflow.components(separatedBy: "restore-keys: pipeline-state-\n").count, 3, "both jobs restore the newest state: \(workflow)")
    }

    func testNothingIsOverwrittenWithoutForce() throws {
        XCTAssertEqual(try pipeline(["init"]).status, 0)
        try directory.write("policy.yml", "# mine\n")
        try directory.write(".gitignore", "node_modules/\n")
        let again = try pipeline(["init"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("'pipeline.yml'") && again.stderr.contains("'policy.yml'") && again.stderr.contains("--force"), again.stderr)
        XCTAssertEqual(try String(contentsOfFile: directory.path + "/policy.yml", encoding: .utf8), "# mine\n", "nothing was written")
        let forced = try pipeline(["init", "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertNotEqual(try String(contentsOfFile: directory.path + "/policy.yml", encoding: .utf8), "# mine\n")
        let ignore = try String(contentsOfFile: directory.path + "/.gitignore", encoding: .utf8)
        XCTAssertEqual(ignore, "node_modules/\n.pipeline/\nbuild/\n", "kept, each line added once")
    }

    func testTheFoldersOwnFilesAreUsedWhenThereAreSome() throws {
        let own = "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        try directory.write("docs/handbook.pdf", own)
        let made = try pipeline(["init", "--kind", "documents"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/samples"), "no samples when the folder has PDFs")
        let manifest = try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
        XCTAssertTrue(manifest.contains(#"inputs: ["**/*.{pdf,PDF}", "!build/**", "!.pipeline/**", "!node_modules/**"]"#), manifest)
        let plan = try pipeline(["plan", "pipeline.yml"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.contains("docs/handbook.pdf"), plan.stdout)
    }

    /// A folder with video and no audio: `init --kind media` writes the video job alone, and its
    /// policy only what that job uses, so the plan passes.
    func testMediaJobsAreWrittenOnlyForTheFilesThereAre() throws {
        try MediaCorpus.writePortraitVideo(directory.path + "/clips/intro.mp4")
        let made = try pipeline(["init", "--kind", "media"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let manifest = try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8)
        XCTAssertTrue(manifest.contains("  videos:") && !manifest.contains("  audio:"), manifest)
        let policy = try String(contentsOfFile: directory.path + "/policy.yml", encoding: .utf8)
        XCTAssertTrue(policy.contains("/video/encode") && !policy.contains("/audio/encode"), policy)
        let plan = try pipeline(["plan", "pipeline.yml"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.contains("clips/intro.mp4"), plan.stdout)
    }

    /// Photos and a video: the images project says what it left out, how many, one name, and
    /// how to include them; without photos, the samples' note names the init that processes them.
    func testFilesOfAnotherKindAreNamedNotSilentlyLeftOut() async throws {
        try directory.write("mixed/photos/a.jpg", data: TestImages.png(width: 40, height: 30))
        try directory.write("mixed/photos/b.jpg", data: TestImages.png(width: 40, height: 30))
        try directory.write("mixed/clip.mp4", "not really a video: init looks at names")
        let folder = directory.path + "/mixed"
        let mixed = await CLIHarness.run(["init", folder])
        XCTAssertEqual(mixed.status, 0, mixed.stderr)
        XCTAssertTrue(mixed.stdout.contains("Left out, in no job: 1 video (clip.mp4); the manifest processes images only.\n"), mixed.stdout)
        XCTAssertTrue(mixed.stdout.contains("To process the media too, add a job for them to pipeline.yml (`pipeline init --kind media`"), mixed.stdout)
        // Only videos: image samples are made, and the note says how to process the videos instead.
        let videos = directory.path + "/videos"
        try directory.write("videos/one.mp4", "x")
        try directory.write("videos/talk/two.MOV", "x")
        let sampled = await CLIHarness.run(["init", videos])
        XCTAssertEqual(sampled.status, 0, sampled.stderr)
        XCTAssertTrue(sampled.stdout.contains("Left out, in no job: 2 videos (such as "), sampled.stdout)
        XCTAssertTrue(sampled.stdout.contains("To process the media instead of samples: pipeline init \(videos) --kind media --force\n"), sampled.stdout)
        // A project of the kind the folder holds says nothing of the kind.
        let media = await CLIHarness.run(["init", videos, "--kind", "media", "--force"])
        XCTAssertEqual(media.status, 0, media.stderr)
        XCTAssertFalse(media.stdout.contains("Left out"), media.stdout)
    }

    func testCameraPhotosInCapitalsArePlanned() throws {
        try directory.write("photos/IMG_0001.JPG", data: TestImages.png(width: 40, height: 30))
        try directory.write("photos/IMG_0002.jpg", data: TestImages.png(width: 40, height: 30))
        let made = try pipeline(["init", "--kind", "images"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let plan = try pipeline(["plan", "pipeline.yml"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.contains("IMG_0001.JPG") && plan.stdout.contains("IMG_0002.jpg"), plan.stdout)
        // A hand-written glob in one case: the error names the file that differs only in case.
        try directory.write("only-lower.yml", "version: 1\nendpoint: local\nassemblies:\n  p:\n    inputs: [photos/*0001.jpg]\n    steps:\n      h: {robot: /file/hash, use: ':original'}\n")
        let missed = try pipeline(["plan", "only-lower.yml"])
        XCTAssertEqual(missed.status, 1)
        XCTAssertTrue(missed.stderr.contains("'photos/IMG_0001.JPG' differs from it only in case"), missed.stderr)
    }

    func testUsageErrors() throws {
        let kind = try pipeline(["init", "--kind", "music"])
        XCTAssertEqual(kind.status, 64)
        XCTAssertTrue(kind.stderr.contains("images, media or documents"), kind.stderr)
        try directory.write("file", "x")
        let blocked = try pipeline(["init", "file/project"])
        XCTAssertEqual(blocked.status, 1)
        XCTAssertTrue(blocked.stderr.contains("cannot make the project folder 'file/project'") && blocked.stderr.contains("is a file, not a folder"),
                      blocked.stderr)
    }

    func testPathsInTheWayStopItBeforeAnythingIsWritten() throws {
        // A file where a folder goes, a link out of the project, a dangling link where a file goes.
        let outside = try TemporaryDirectory(prefix: "init-outside")
        defer { outside.remove() }
        for (setUp, expected) in [
            ({ (folder: String) in try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/samples")) }, "/samples' is a file where a folder goes"),
            ({ (folder: String) in try FileManager.default.createSymbolicLink(atPath: folder + "/.github", withDestinationPath: outside.path) },
             "/.github' is a symbolic link"),
            ({ (folder: String) in try FileManager.default.createSymbolicLink(atPath: folder + "/.gitignore", withDestinationPath: outside.path + "/ignore") },
             "/.gitignore' is a symbolic link"),
        ] as [((String) throws -> Void, String)] {
            let project = try TemporaryDirectory(prefix: "init-blocked")
            defer { project.remove() }
            try setUp(project.path)
            let before = try FileManager.default.contentsOfDirectory(atPath: project.path).sorted()
            for arguments in [["init", project.path], ["init", project.path, "--force"]] {
                let refused = try pipeline(arguments)
                XCTAssertEqual(refused.status, 1, "\(arguments): \(refused.stderr)")
                XCTAssertTrue(refused.stderr.contains(expected) && refused.stderr.contains("nothing was written"), refused.stderr)
                XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: project.path).sorted(), before, "nothing was written")
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [], "nothing outside the project")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/pipeline.yml", withDestinationPath: outside.path + "/missing.yml")
        let dangling = try pipeline(["init"])
        XCTAssertEqual(dangling.status, 1, "a dangling link is in the way too")
        XCTAssertTrue(dangling.stderr.contains("'pipeline.yml' already exists"), dangling.stderr)
    }

    func testMediaWithoutFFmpegWritesNothingAndTheNextStepsAreSafeToPaste() throws {
        let bare = try TemporaryDirectory(prefix: "init-bin")
        defer { bare.remove() }
        let result = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["init", "talks", "--kind", "media"], in: directory.path,
                                           environment: ["PATH": bare.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("ffmpeg, which is not installed; nothing was written"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/talks"), [])
        let odd = try pipeline(["init", "--", "-my $(id) project"])
        XCTAssertEqual(odd.status, 0, odd.stderr)
        XCTAssertTrue(odd.stdout.contains("cd './-my $(id) project'"), odd.stdout)
        XCTAssertEqual(InitCommand.shellQuoted("it's"), #"'it'\''s'"#)
        XCTAssertEqual(InitCommand.shellQuoted("new\nline\tx"), #"$'new\nline\tx'"#)
        XCTAssertEqual(InitCommand.shellQuoted("plain/site-1"), "plain/site-1")
    }

    func testAFailedForcedInitPutsBackWhatItReplaced() throws {
        // ffmpeg fails after the manifest, the policy and the workflow were replaced.
        let tools = try TemporaryDirectory(prefix: "init-tools")
        defer { tools.remove() }
        let fake = try tools.write("ffmpeg", "#!/bin/sh\necho 'no encoder' >&2\nexit 1\n")
        XCTAssertEqual(chmod(fake, 0o755), 0)
        try directory.write("pipeline.yml", "# mine\n")
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let result = try ProcessRunner.run(ProcessRunner.pipelineExecutable, ["init", "--kind", "media", "--force"], in: directory.path,
                                           environment: ["PATH": tools.path + ":/usr/bin:/bin"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("no encoder") && result.stderr.contains("nothing was changed"), result.stderr)
        XCTAssertEqual(try String(contentsOfFile: directory.path + "/pipeline.yml", encoding: .utf8), "# mine\n", "the user's file is back")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), before, "and nothing else is left")
    }

    func testIgnoreLinesAreRecognisedHoweverSpeltAndKeepTheFilesLineEndings() throws {
        try directory.write(".gitignore", "/.pipeline\r\nnode_modules\r\n")
        XCTAssertEqual(try pipeline(["init"]).status, 0)
        XCTAssertEqual(try String(contentsOfFile: directory.path + "/.gitignore", encoding: .utf8), "/.pipeline\r\nnode_modules\r\nbuild/\r\n")
        // Leading spaces are part of a git pattern; a `!` line is the user's decision.
        let other = try TemporaryDirectory(prefix: "init-ignore")
        defer { other.remove() }
        try other.write(".gitignore", "  build/\n!.pipeline/\n")
        XCTAssertEqual(try pipeline(["init"], in: other.path).status, 0)
        XCTAssertEqual(try String(contentsOfFile: other.path + "/.gitignore", encoding: .utf8), "  build/\n!.pipeline/\nbuild/\n")
    }

    func testAnIgnoreFileInAnotherEncodingKeepsItsBytesAndOneThatCannotBeReadIsNotReplaced() throws {
        // Latin-1 bytes (not UTF-8): kept as they are, the missing lines added after them.
        let latin1 = Data("caf".utf8) + Data([0xE9]) + Data("/\n.pipeline/\n".utf8)
        try latin1.write(to: URL(fileURLWithPath: directory.path + "/.gitignore"))
        XCTAssertEqual(try pipeline(["init"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/.gitignore")), latin1 + Data("build/\n".utf8))
        XCTAssertThrowsError(try ProjectWriter.ignore(["build/"], in: directory.path)) { error in
            XCTAssertTrue("\(error)".contains(directory.path), "a folder in its place is said, not written over: \(error)")
        }
    }
}
