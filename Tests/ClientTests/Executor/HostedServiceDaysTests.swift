import APIClients
import Basics
import Client
import Crypto
import EngineTestSupport
import Foundation
import HTTPClient
import Planning
import Synchronization
import TestSupport
import XCTest

/// A daily run with downloads against a front with the hosted service's habits (its clock
/// ahead, a create whose answer is lost, `retryIn: 0`, a load balancer's 429 on tus, temporary
/// results that expire, the service's result shapes), over several days of its clock: each
/// day's run makes only the requests it needs.
final class HostedServiceDaysTests: XCTestCase {
    private var engine: EngineTestServer!
    private var front: ServerProcess!
    private var project: TemporaryDirectory!
    private let days = DayClock()
    private let http = HTTPClient()

    override func setUpWithError() throws {
        engine = try EngineTestServer()
        project = try TemporaryDirectory(prefix: "days")
        _ = try project.write("in/a.png", data: TestImages.png(width: 40, height: 30))
        _ = try project.write("in/b.png", data: TestImages.png(width: 30, height: 40))
    }

    override func tearDown() {
        front?.stop()
        engine.stop()
        project.remove()
    }

    private func startFront(_ options: [String] = []) throws {
        front = try ServerProcess(
            "/usr/bin/env", ["python3", PackageRoot.path + "/Tests/ClientTests/Executor/Fixtures/hosted_service.py", String(engine.port), "key", "secret"] + options)
    }

    /// Moves the front's clock and this machine's (as the run sees it) by `hours`.
    private func advance(hours: Double) async throws {
        _ = try await http.send(HTTPRequest(method: "POST", url: front.url("/_habits/advance?hours=\(hours)")))
        days.advance(hours: hours)
    }

    /// Every request the front answered so far, as `METHOD path status`.
    private func log() async throws -> [String] {
        let response = try await http.send(HTTPRequest(method: "GET", url: front.url("/_habits/log")))
        return try JSONDecoder().decode([String].self, from: response.body)
    }

    /// One Assembly per source, each with a thumbnail and a "private" (signed URL) copy, downloaded to `build`.
    private func run(resultsLifetime: Duration? = .seconds(24 * 3600)) async throws -> RunResults {
        let instructions = JSONValue.object(["steps": .object([
            "thumb": .object(["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(8), "height": .int(8)]),
            "private_copy": .object(["robot": .string("/image/resize"), "use": .string(":original"), "width": .int(12), "height": .int(12)]),
        ])])
        let assemblies = try ["in/a.png", "in/b.png"].map { path in
            let digest = try FileHasher.digest(path: project.path + "/" + path)
            return PlannedAssembly(job: "photos", instructions: instructions, files: [PlannedFile(path: path, size: digest.size, digest: digest.digest, modified: digest.modified)])
        }
        var configuration = RunConfiguration(
            endpoint: front.url(""), authKey: "key", signer: SecretSigner(secret: "secret"), lifetime: .seconds(600),
            workspace: Workspace(directory: project.path, resultsPath: project.path + "/results.json"),
            downloads: ["photos": DownloadTarget(folder: project.path + "/build", patterns: ["in/*.png"])])
        configuration.resultsLifetime = resultsLifetime
        configuration.pollInterval = .milliseconds(200)
        configuration.eagerPolls = true
        let days = days
        configuration.serviceClock = ServiceClock(local: { days.date })
        let runner = Runner(plan: Plan(pipeline: "site", manifest: "pipeline.yml", assemblies: assemblies), configuration: configuration, http: http)
        return try await runner.run { _ in }
    }

    private func md5(_ path: String) throws -> String {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        return Hex.encode(try StreamingDigest.file(path, algorithm: .md5, buffer: &buffer).digest)
    }

    func testADailyRunWithDownloadsMakesOnlyTheRequestsItNeeds() async throws {
        try startFront(["--ahead", "10800", "--lose-create", "1", "--retry-in-zero", "3", "--tus-429"])

        // Day 1: a clock three hours behind, a lost answer, retryIn 0 and a load balancer's 429s, all met.
        let first = try await run()
        XCTAssertEqual(first.assemblies.map(\.status), ["ASSEMBLY_COMPLETED", "ASSEMBLY_COMPLETED"], "\(first.assemblies.map(\.message))")
        let dayOne = try await log()
        // Only the creates sent before the first answer showed the skew meet it: at most one per
        // Assembly in flight (the second may go after the first answer, on a loaded machine).
        XCTAssertTrue((1...2).contains(dayOne.filter { $0.hasPrefix("POST /assemblies/") && $0.hasSuffix(" 403") }.count), "\(dayOne)")
        XCTAssertEqual(dayOne.filter { $0.hasSuffix(" lost") }.count, 1)
        XCTAssertEqual(dayOne.filter { $0.hasPrefix("POST /assemblies/") && $0.hasSuffix(" 429") }.count, 1, "retryIn 0 was met once")
        XCTAssertEqual(dayOne.filter { $0.hasPrefix("POST /resumable/") && $0.hasSuffix(" 429") }.count, 1, "an upload met the load balancer: \(dayOne)")
        XCTAssertEqual(dayOne.filter { $0.hasPrefix("POST /resumable/") && $0.hasSuffix(" 201") }.count, 2)
        // The lost create made its Assembly; its retry took it: two Assemblies in all.
        let made = fileNames(in: engine.data.path + "/assemblies").filter { $0.hasSuffix(".json") }
        XCTAssertEqual(made.count, 2, "\(made)")
        XCTAssertEqual(Set(first.assemblies.compactMap(\.assemblyID)).count, 2)
        // Results as the service writes them: no size, an MD5, a private copy's signed URL; each downloaded once, checked.
        let results = first.assemblies.flatMap { $0.results.values.flatMap { $0 } }
        XCTAssertEqual(results.count, 4)
        XCTAssertEqual(dayOne.filter { $0.hasPrefix("GET /tmp/") }.count, 4, "\(dayOne)")
        for result in results {
            XCTAssertNil(result.size)
            XCTAssertFalse(result.url?.hasSuffix("?unsigned") ?? true, "the signed URL is taken")
            let local = try XCTUnwrap(result.localPath)
            XCTAssertEqual(try md5(project.path + "/" + local), result.md5)
            // Expiring a day after the run began, by this machine's clock (which judges it the next days).
            let expires = try XCTUnwrap(result.expires)
            XCTAssertEqual(expires.timeIntervalSince(days.date), 24 * 3600, accuracy: 120)
        }
        let written = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: project.path + "/results.json")))
        let thumb = try XCTUnwrap(written["assemblies"]?.arrayValue?.first?["results"]?["thumb"]?.arrayValue?.first)
        XCTAssertEqual(thumb["size"], .null)
        XCTAssertNotNil(thumb["md5hash"]?.stringValue)
        XCTAssertNotNil(thumb["expires"]?.stringValue)

        // Each checked download's MD5 is remembered (relative to the project), so day 2 reads none again.
        let digests = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: project.path + "/.pipeline/download-digests.json")))
        XCTAssertEqual(digests.arrayValue?.compactMap { $0["path"]?.stringValue }.sorted(), results.compactMap(\.localPath).sorted())

        // Day 2: nothing changed and every download is in place: not one request.
        try await advance(hours: 24)
        let second = try await run()
        XCTAssertEqual(second.assemblies.map(\.cached), [true, true])
        let dayTwo = try await log()
        XCTAssertEqual(Array(dayTwo.dropFirst(dayOne.count)), [], "a cached run with its downloads in place asks nothing")

        // Day 7: a download is lost; its result expired on the service: that Assembly is made
        // again (no request for the expired URL), and only the missing file is fetched.
        try await advance(hours: 5 * 24)
        let lost = try XCTUnwrap(first.assemblies[0].results["thumb"]?.first?.localPath)
        try FileManager.default.removeItem(atPath: project.path + "/" + lost)
        let seventh = try await run()
        XCTAssertEqual(seventh.assemblies.map(\.status), ["ASSEMBLY_COMPLETED", "ASSEMBLY_COMPLETED"])
        XCTAssertEqual(seventh.assemblies.map(\.cached), [false, true])
        XCTAssertNotEqual(seventh.assemblies[0].assemblyID, first.assemblies[0].assemblyID)
        XCTAssertTrue(FileManager.default.fileExists(atPath: project.path + "/" + lost))
        let daySeven = Array(try await log().dropFirst(dayTwo.count))
        XCTAssertEqual(daySeven.filter { $0.hasPrefix("GET /tmp/") }, daySeven.filter { $0.hasPrefix("GET /tmp/") && $0.hasSuffix(" 200") }, "no expired URL is asked for: \(daySeven)")
        XCTAssertEqual(daySeven.filter { $0.hasPrefix("GET /tmp/") }.count, 1, "only the missing download is fetched: \(daySeven)")
        XCTAssertFalse(daySeven.contains { $0.contains(first.assemblies[1].assemblyID ?? "-") }, "the other Assembly costs nothing")
    }

    func testAResultGoneBeforeItsKnownExpiryIsMadeAgainAfterOneRefusal() async throws {
        try startFront()
        // A server whose results' lifetime the run does not know: a missing download is fetched, found gone, and made again.
        let first = try await run(resultsLifetime: nil)
        XCTAssertEqual(first.assemblies.map(\.status), ["ASSEMBLY_COMPLETED", "ASSEMBLY_COMPLETED"], "\(first.assemblies.map(\.message))")
        XCTAssertNil(first.assemblies[0].results["thumb"]?.first?.expires)
        let before = try await log().count
        try await advance(hours: 48)
        let lost = try XCTUnwrap(first.assemblies[1].results["private_copy"]?.first?.localPath)
        try FileManager.default.removeItem(atPath: project.path + "/" + lost)
        let second = try await run(resultsLifetime: nil)
        XCTAssertEqual(second.assemblies.map(\.status), ["ASSEMBLY_COMPLETED", "ASSEMBLY_COMPLETED"])
        XCTAssertEqual(second.assemblies.map(\.cached), [true, false])
        XCTAssertTrue(FileManager.default.fileExists(atPath: project.path + "/" + lost))
        let later = Array(try await log().dropFirst(before))
        XCTAssertEqual(later.filter { $0.hasPrefix("GET /tmp/") && $0.hasSuffix(" 404") }.count, 1, "\(later)")
        XCTAssertEqual(later.filter { $0.hasPrefix("POST /assemblies/") }.count, 1, "one Assembly made again: \(later)")
    }

    func testADownloadThatDoesNotMatchItsMD5IsNeverPutInPlace() async throws {
        try startFront(["--wrong-md5"])
        do {
            _ = try await run()
            XCTFail("the run must fail")
        } catch {
            XCTAssertTrue("\(error)".contains("the download has the MD5 "), "\(error)")
            XCTAssertTrue("\(error)".contains("the status said 00000000000000000000000000000000"), "\(error)")
        }
        // Tried a few times (it may have been damaged on the way), and nothing left in the folder.
        let fetched = try await log().filter { $0.hasPrefix("GET /tmp/") }
        XCTAssertGreaterThanOrEqual(fetched.count, 4)
        let left = (FileManager.default.enumerator(atPath: project.path + "/build")?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".png") || $0.hasSuffix(".part") }
        XCTAssertEqual(left, [])
    }
}

/// This machine's time as a run sees it, moved forward a day at a time by the test.
final class DayClock: Sendable {
    private let advanced = Mutex<TimeInterval>(0)

    var date: Date { Date().addingTimeInterval(advanced.withLock { $0 }) }

    func advance(hours: Double) { advanced.withLock { $0 += hours * 3600 } }
}
