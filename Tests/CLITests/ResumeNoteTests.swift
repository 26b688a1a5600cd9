@testable import CLI
@testable import Client
import XCTest

/// After Ctrl-C on the embedded engine, which stops with the command, the run says which
/// Assemblies start over from the beginning rather than pretend they resume.
final class ResumeNoteTests: XCTestCase {
    private func entry(_ planID: String, _ status: String, assemblyID: String? = "a1") -> RunResults.Entry {
        RunResults.Entry(job: "videos", planID: planID, assemblyID: assemblyID, assemblyURL: nil, status: status, message: nil, cached: false, files: [], results: [:])
    }

    func testTheEmbeddedEngineNamesWhatStartsOver() {
        let results = RunResults(
            pipeline: "p", manifest: "pipeline.yml", shard: nil, endpoint: "local",
            assemblies: [entry("111111111111aaaa", "ASSEMBLY_COMPLETED"), entry("222222222222bbbb", "INTERRUPTED"), entry("333333333333cccc", "NOT_STARTED", assemblyID: nil)])
        let note = ResumeNote.text(results, force: false, embedded: true)
        XCTAssertTrue(note.hasPrefix("Run the same command again to resume: 1 completed is kept, but 1 Assembly the embedded engine was processing (videos 222222222222) starts over from the beginning"), note)
        XCTAssertEqual(ResumeNote.text(results, force: false, embedded: false), "Run the same command again to resume.", "elsewhere the service goes on and the next run picks it up")
        XCTAssertTrue(ResumeNote.text(results, force: true, embedded: true).contains("with --force it starts over"))
    }
}
