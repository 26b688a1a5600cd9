import APIClients
import Basics
import Client
import Foundation
import Planning
import Synchronization
import TestSupport
import Wire
import XCTest

/// A run that finds the Assembly an earlier run left ended unfinished (cut off with the process
/// that handed it its files, as the embedded engine's are) makes a new one, and says that its
/// work starts over, naming the old Assembly and why.
final class StartingOverTests: XCTestCase {
    func testAnAssemblyLeftUnfinishedStartsOverAndSaysWhy() async throws {
        let directory = try TemporaryDirectory(prefix: "starting-over")
        defer { directory.remove() }
        try directory.write("a.txt", "a")
        let file = try FileHasher.digest(path: directory.path + "/a.txt")
        let plan = Plan(pipeline: "p", manifest: "m.yml", assemblies: [PlannedAssembly(
            job: "job", instructions: .object(["steps": .object([:])]),
            files: [PlannedFile(path: "a.txt", size: file.size, digest: file.digest, modified: file.modified)])])
        let configuration = RunConfiguration(
            endpoint: "https://api.test", authKey: nil, signer: nil, lifetime: .seconds(600),
            workspace: Workspace(directory: directory.path, resultsPath: directory.path + "/results.json"))
        let cut = AssemblyClient.Failure(code: .interrupted, message: "the process that handed this Assembly its files ended", httpStatus: 200)

        // The first run's Assembly is created, then cut off.
        let first = ScriptedService(creates: [ScriptedService.status(AssemblyStatusCode.uploading)], statuses: [.failure(cut)])
        _ = try await Runner(plan: plan, configuration: configuration, service: first, uploads: CountingUploads(), clock: ImpatientClock()).run { _ in }

        let second = ScriptedService(
            creates: [ScriptedService.status(AssemblyStatusCode.uploading, id: "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2")],
            statuses: [.failure(cut), ScriptedService.status(AssemblyStatusCode.completed, id: "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2", uploads: 1)])
        let said = Mutex<[String]>([])
        let results = try await Runner(plan: plan, configuration: configuration, service: second, uploads: CountingUploads(), clock: ImpatientClock()).run { event in
            if case .startingOver(_, _, let reason) = event { said.withLock { $0.append(reason) } }
        }
        XCTAssertEqual(results.assemblies.first?.status, AssemblyStatusCode.completed.rawValue)
        XCTAssertEqual(second.calls.filter { $0.hasPrefix("create") }.count, 1, "a new Assembly: \(second.calls)")
        let reasons = said.withLock { $0 }
        XCTAssertEqual(reasons.count, 1, "\(reasons)")
        XCTAssertTrue(reasons.first?.contains("Assembly a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1 of an earlier run ended unfinished (INTERRUPTED: the process") == true, "\(reasons)")
        XCTAssertTrue(reasons.first?.hasSuffix("its work starts over in a new Assembly") == true, "\(reasons)")
    }
}
