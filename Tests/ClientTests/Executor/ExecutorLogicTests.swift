import APIClients
import Basics
import Client
import Foundation
import Planning
import TestSupport
import Wire
import XCTest

/// The run's logic against a scripted Assembly API and a test clock: no sockets, no real waits.
final class ExecutorLogicTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "executor")
        try directory.write("a.txt", "a")
    }

    override func tearDown() { directory.remove() }

    private func run(
        _ service: ScriptedService, clock: ImpatientClock, timeout: Duration = .seconds(3600), eagerPolls: Bool = false, signer: (any ParamsSigner)? = nil,
        uploads: any UploadService = CountingUploads()
    ) async throws -> RunResults {
        let file = try FileHasher.digest(path: directory.path + "/a.txt")
        let planned = PlannedAssembly(
            job: "job", instructions: .object(["steps": .object([:])]),
            files: [PlannedFile(path: "a.txt", size: file.size, digest: file.digest, modified: file.modified)])
        var configuration = RunConfiguration(
            endpoint: "https://api.test", authKey: signer == nil ? nil : "key", signer: signer, lifetime: .seconds(600),
            workspace: Workspace(directory: directory.path, resultsPath: directory.path + "/results.json"), timeout: timeout)
        configuration.pollInterval = .seconds(1)
        configuration.eagerPolls = eagerPolls
        let runner = Runner(
            plan: Plan(pipeline: "p", manifest: "m.yml", assemblies: [planned]), configuration: configuration,
            service: service, uploads: uploads, clock: clock)
        return try await runner.run { _ in }
    }

    func testALostCreateAnswerFindsTheAssemblyInsteadOfMakingASecond() async throws {
        let service = ScriptedService(
            creates: [
                .failure(AssemblyClient.Failure(code: .network, message: "connection reset", isTransient: true)),
                .failure(AssemblyClient.Failure(code: .assemblyIDTaken, message: "exists")),
            ],
            statuses: [ScriptedService.status(AssemblyStatusCode.uploading), ScriptedService.status(AssemblyStatusCode.completed, uploads: 1)])
        let results = try await run(service, clock: ImpatientClock())
        XCTAssertEqual(results.assemblies.first?.status, AssemblyStatusCode.completed.rawValue)
        let creates = service.calls.filter { $0.hasPrefix("create") }
        XCTAssertEqual(creates.count, 2)
        XCTAssertEqual(Set(creates).count, 1, "the retry used the same client-chosen id: \(creates)")
    }

    func testAnAssemblyWhoseUploadsFailIsCanceledAndSaysSo() async throws {
        let service = ScriptedService(creates: [ScriptedService.status(AssemblyStatusCode.uploading)], statuses: [])
        let results = try await run(service, clock: ImpatientClock(), uploads: FailingUploads())
        let entry = try XCTUnwrap(results.assemblies.first)
        XCTAssertEqual(entry.status, "UPLOAD_FAILED")
        XCTAssertTrue(entry.message?.contains("was canceled (the next run makes a new one)") ?? false, entry.message ?? "")
        XCTAssertEqual(service.calls.filter { $0.hasPrefix("cancel") }, ["cancel https://api.test/assemblies/a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"])
    }

    func testEachAttemptToCreateIsSignedAfresh() async throws {
        let service = ScriptedService(
            creates: [
                .failure(AssemblyClient.Failure(code: .network, message: "connection reset", isTransient: true)),
                .failure(AssemblyClient.Failure(code: .assemblyIDTaken, message: "exists")),
            ],
            statuses: [ScriptedService.status(AssemblyStatusCode.uploading), ScriptedService.status(AssemblyStatusCode.completed, uploads: 1)])
        let results = try await run(service, clock: ImpatientClock(), signer: SecretSigner(secret: "s"))
        XCTAssertEqual(results.assemblies.first?.status, AssemblyStatusCode.completed.rawValue)
        let creates = service.calls.filter { $0.hasPrefix("create") }
        XCTAssertEqual(creates.count, 2)
        XCTAssertEqual(Set(creates.map { $0.prefix(39) }).count, 1, "one Assembly id: \(creates)")
        XCTAssertEqual(Set(creates).count, 2, "a new signature for the retry: \(creates)")
    }

    func testARateLimitWithRetryInZeroWaitsABackoffAndHoldsTheRun() async throws {
        let clock = ImpatientClock()
        let service = ScriptedService(
            creates: [
                .failure(AssemblyClient.Failure(code: .rateLimitReached, message: "slow down", retryIn: 0, isTransient: true, httpStatus: 429)),
                ScriptedService.status(AssemblyStatusCode.executing),
            ],
            statuses: [ScriptedService.status(AssemblyStatusCode.completed)])
        let results = try await run(service, clock: clock)
        XCTAssertEqual(results.assemblies.first?.status, AssemblyStatusCode.completed.rawValue)
        let wait = try XCTUnwrap(clock.sleeps.first)
        XCTAssertGreaterThanOrEqual(wait, .seconds(1), "retryIn 0 is no advice: the backoff's first second")
    }

    func testARateLimitWaitsWhatTheServiceSays() async throws {
        let clock = ImpatientClock()
        let service = ScriptedService(
            creates: [
                .failure(AssemblyClient.Failure(code: .rateLimitReached, message: "slow down", retryIn: 7, isTransient: true)),
                ScriptedService.status(AssemblyStatusCode.executing),
            ],
            statuses: [ScriptedService.status(AssemblyStatusCode.completed)])
        let results = try await run(service, clock: clock)
        XCTAssertEqual(results.assemblies.first?.status, AssemblyStatusCode.completed.rawValue)
        let wait = try XCTUnwrap(clock.sleeps.first)
        XCTAssertGreaterThanOrEqual(wait, .seconds(7))
        XCTAssertLessThanOrEqual(wait, .milliseconds(7700), "retryIn plus at most 10% jitter")
    }

    func testAServerThatHoldsStatusRequestsIsAskedOnceWithoutSleeping() async throws {
        let clock = ImpatientClock()
        let service = ScriptedService(
            creates: [ScriptedService.status(AssemblyStatusCode.executing)], statuses: [ScriptedService.status(AssemblyStatusCode.completed)], holds: 20)
        let results = try await run(service, clock: clock)
        XCTAssertEqual(results.assemblies.first?.status, AssemblyStatusCode.completed.rawValue)
        XCTAssertEqual(service.calls.filter { $0.hasPrefix("status") }, ["status https://api.test/assemblies/a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1 wait 20"])
        XCTAssertEqual(clock.sleeps.filter { $0 > .zero }, [])
    }

    /// A server that offered to hold status requests, then gave `first` to the held one.
    private func statusesAfterAHeldRequest(_ first: ScriptedService.Answer) async throws -> (asked: [String], pauses: [Duration]) {
        let executing = ScriptedService.status(AssemblyStatusCode.executing)
        let clock = ImpatientClock()
        let service = ScriptedService(creates: [executing], statuses: [first, executing, ScriptedService.status(AssemblyStatusCode.completed)], holds: 20)
        let results = try await run(service, clock: clock)
        XCTAssertEqual(results.assemblies.first?.status, AssemblyStatusCode.completed.rawValue)
        return (service.calls.filter { $0.hasPrefix("status") }, clock.sleeps.filter { $0 > .zero })
    }

    func testAServerThatOffersToHoldButAnswersAtOnceIsPolledAsAnyOther() async throws {
        let (asked, pauses) = try await statusesAfterAHeldRequest(ScriptedService.status(AssemblyStatusCode.executing))
        XCTAssertEqual(asked.map { $0.hasSuffix(" wait 20") }, [true, false, false], "\(asked)")
        XCTAssertFalse(pauses.isEmpty, "polled with pauses again")
    }

    func testAHeldRequestThatFailsFallsBackToPolling() async throws {
        let (asked, pauses) = try await statusesAfterAHeldRequest(.failure(AssemblyClient.Failure(code: APIErrorCode(received: "HTTP_504"), message: "gateway timeout", isTransient: true)))
        XCTAssertEqual(asked.map { $0.hasSuffix(" wait 20") }, [true, false, false], "\(asked)")
        XCTAssertFalse(pauses.isEmpty, "polled with pauses again")
    }

    func testPollingStartsAtOnceThenSoonThenSlowsGently() async throws {
        let clock = ImpatientClock()
        let executing = ScriptedService.status(AssemblyStatusCode.executing)
        let service = ScriptedService(
            creates: [executing], statuses: Array(repeating: executing, count: 15) + [ScriptedService.status(AssemblyStatusCode.completed)])
        _ = try await run(service, clock: clock)
        let seconds = clock.sleeps.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        XCTAssertEqual(seconds.count, 16)
        XCTAssertEqual(seconds[0], 0, "the first look is as soon as the last upload is answered")
        for (index, value) in seconds.dropFirst().prefix(11).enumerated() {
            XCTAssertEqual(value, 0.1 * pow(1.25, Double(index)), accuracy: 0.001, "a tenth of the interval, widening by a quarter")
        }
        XCTAssertEqual(seconds[12], 1.0, accuracy: 0.001, "up to the interval")
        XCTAssertEqual(seconds[13], 1.2, accuracy: 0.001, "then slowing gently")
    }

    func testEagerPollsStartAtFiveMillisecondsAndDoubleWithoutPollingMoreInTheFirstSecond() async throws {
        let executing = ScriptedService.status(AssemblyStatusCode.executing)
        func sleeps(eager: Bool) async throws -> [Double] {
            let clock = ImpatientClock()
            let service = ScriptedService(
                creates: [executing], statuses: Array(repeating: executing, count: 15) + [ScriptedService.status(AssemblyStatusCode.completed)])
            _ = try await run(service, clock: clock, eagerPolls: eager)
            return clock.sleeps.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        }
        let eager = try await sleeps(eager: true)
        for (value, expected) in zip(eager, [0, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64]) {
            XCTAssertEqual(value, expected, accuracy: 0.0001, "at once, then from 5 ms doubling")
        }
        XCTAssertEqual(eager[9], 1.0, accuracy: 0.001, "up to the interval")
        XCTAssertEqual(eager[10], 1.2, accuracy: 0.001, "then slowing gently")
        func pollsWithin(_ sleeps: [Double], seconds: Double) -> Int {
            var elapsed = 0.0
            return sleeps.prefix { elapsed += $0; return elapsed <= seconds }.count
        }
        // The gentle start, as `testPollingStartsAtOnceThenSoonThenSlowsGently` checks it.
        let gentle = [0.0] + (0..<11).map { 0.1 * pow(1.25, Double($0)) } + [1.0, 1.2]
        XCTAssertLessThanOrEqual(pollsWithin(eager, seconds: 1), pollsWithin(gentle, seconds: 1) + 2)
        XCTAssertLessThanOrEqual(pollsWithin(eager, seconds: 2), pollsWithin(gentle, seconds: 2), "and no more within two seconds")
    }

    func testOnceTheEndpointIsFoundDownTheOtherAssembliesFailAtTheirFirstRefusal() async throws {
        for name in ["b.txt", "c.txt"] { try directory.write(name, name) }
        let refused = ScriptedService.Answer.failure(AssemblyClient.Failure(code: APIErrorCode.cannotConnect, message: "connection refused", isTransient: true))
        let service = ScriptedService(creates: Array(repeating: refused, count: 20), statuses: [])
        let assemblies = try ["a.txt", "b.txt", "c.txt"].map { name in
            let file = try FileHasher.digest(path: directory.path + "/" + name)
            return PlannedAssembly(job: "job", instructions: .object(["steps": .object([:])]),
                                   files: [PlannedFile(path: name, size: file.size, digest: file.digest, modified: file.modified)])
        }
        var configuration = RunConfiguration(
            endpoint: "https://api.test", authKey: nil, signer: nil, lifetime: .seconds(600),
            workspace: Workspace(directory: directory.path, resultsPath: directory.path + "/results.json"), concurrency: 1)
        configuration.pollInterval = .seconds(1)
        let runner = Runner(
            plan: Plan(pipeline: "p", manifest: "m.yml", assemblies: assemblies), configuration: configuration,
            service: service, uploads: CountingUploads(), clock: ImpatientClock())
        let results = try await runner.run { _ in }
        XCTAssertEqual(results.assemblies.map(\.status), Array(repeating: APIErrorCode.cannotConnect.rawValue, count: 3))
        XCTAssertEqual(service.calls.count, 4 + 1 + 1, "the first Assembly tries 4 times, the others once: \(service.calls)")
        XCTAssertTrue(results.assemblies.last?.message?.contains("stopped answering earlier in this run") == true, "\(results.assemblies.last?.message ?? "")")
    }

    func testAnAssemblyThatNeverGetsItsUploadsFailsAfterTheGrace() async throws {
        let clock = ImpatientClock()
        let uploading = ScriptedService.status(AssemblyStatusCode.uploading)
        let service = ScriptedService(creates: [uploading], statuses: Array(repeating: uploading, count: 200))
        let results = try await run(service, clock: clock)
        XCTAssertEqual(results.assemblies.first?.status, "ASSEMBLY_UPLOADS_MISSING")
        XCTAssertEqual(results.assemblies.first?.assemblyID, "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1", "the failed Assembly keeps its id")
    }

    func testTheRunsTimeoutEndsPolling() async throws {
        let executing = ScriptedService.status(AssemblyStatusCode.executing)
        let service = ScriptedService(creates: [executing], statuses: Array(repeating: executing, count: 1000))
        let results = try await run(service, clock: ImpatientClock(), timeout: .seconds(30))
        XCTAssertEqual(results.assemblies.first?.status, "RUN_TIMEOUT")
    }

    func testAServersWaitIsClampedWhateverNumberItSends() async throws {
        for wait in [1e300, .infinity, -5, .nan] {
            let limited = AssemblyClient.Failure(code: .rateLimitReached, message: "slow down", retryIn: wait, isTransient: true)
            // No number at all (NaN), or none above 0, is no advice: the backoff decides.
            XCTAssertTrue(limited.retryIn.map { (0...AssemblyClient.Failure.longestWait).contains($0) } ?? (wait.isNaN || wait <= 0), "\(wait)")
            let service = ScriptedService(creates: [.failure(limited)], statuses: [])
            let results = try await run(service, clock: ImpatientClock(), timeout: .seconds(30))
            XCTAssertNotEqual(results.assemblies.first?.status, AssemblyStatusCode.completed.rawValue, "\(wait)")
        }
    }
}
