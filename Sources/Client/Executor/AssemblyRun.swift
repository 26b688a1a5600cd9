import APIClients
import Basics
import Crypto
import Foundation
import HTTPClient
import Planning
import Spec
import Wire

/// Runs one planned Assembly to its end: find or create it, upload what the server lacks, wait
/// for it, and trace every result back to its source file.
struct AssemblyRun: Sendable {
    let planned: PlannedAssembly
    let configuration: RunConfiguration
    let client: any AssemblyService
    let uploads: any UploadService
    let clock: any MonotonicClock
    /// Paces creations and holds every request after a rate limit, for the whole run.
    let pacer: CreationPacer
    let state: RunState
    /// When the whole run must end (`--timeout`), retries and polling included.
    let deadline: ContinuousClock.Instant
    /// The ids of the manifest's Templates on the service, by name.
    let templateIDs: [String: String]
    let progress: @Sendable (Int64) -> Void
    let events: @Sendable (RunEvent) -> Void
    /// When the run began, by this machine's clock: temporary results expire from then (a little
    /// sooner than the service deletes them), judged by the same clock on a later day.
    var started: Date = Date()
    /// Runs a new Assembly whatever an earlier run left (its results expired before they were downloaded).
    var fresh = false
    /// The planned Assembly it makes part of, when it makes only the steps some files miss.
    var partOf: String?

    func run() async -> RunResults.Entry {
        var outcome: (code: APIErrorCode, message: String)
        // An Assembly that cannot get its files would wait for them for hours, counting against
        // the account's concurrent Assemblies: it is canceled.
        var abandoned = false
        do {
            let created = try await findOrCreate()
            var status = created
            if status.ok == AssemblyStatusCode.uploading {
                try await upload(to: status)
            }
            // `run --no-wait`: its files are up; it ends without us (a later run collects it).
            if !configuration.waits, !status.isCompleted, status.isBusy { return submitted(status) }
            status = try await wait(status)
            return entry(status)
        } catch _ where Task.isCancelled {
            // Ctrl-C: a request cut short is not a network failure.
            outcome = (.interrupted, "")
        } catch let failure as AssemblyClient.Failure {
            outcome = (failure.code, failure.message)
            abandoned = failure.code == .uploadsMissing
        } catch let error as TusError {
            outcome = (.uploadFailed, error.description)
            abandoned = true
        } catch let error as SignerError {
            outcome = (.signingFailed, error.message)
        } catch let error as ChangedFile {
            outcome = (.fileChanged, error.description)
            abandoned = true
        } catch is CancellationError {
            outcome = (.interrupted, "")
        } catch {
            outcome = (.runFailed, "\(error)")
        }
        // The Assembly may exist although this run failed: keep its id and URL in the results.
        let known = await state.entry(planned.id, endpoint: configuration.endpointKey)
        if outcome.code == .interrupted {
            // What the next run (without --force) does with it, as its own state.
            // The embedded engine stops with the run: what it was processing is lost, not resumed.
            outcome = known?.assemblyURL == nil
                ? (.notStarted, "the run was interrupted before this Assembly was created; the next run creates it")
                : configuration.services != nil
                ? (.interrupted, "the run was interrupted and the embedded engine stopped with it; the next run makes Assembly \(known?.assemblyID ?? "") again from the start")
                : (.interrupted, "the run was interrupted; the next run resumes Assembly \(known?.assemblyID ?? "")")
        }
        // Once it was created: where the results say it is (the stored URL on the endpoint's
        // origin, else the endpoint's own for its id), and how the service is asked about it.
        let created = known.flatMap { $0.assemblyURL == nil ? nil : $0 }
        let url = created.map { entry in entry.assemblyURL(on: configuration.endpoint) ?? configuration.endpoint + "/assemblies/" + entry.assemblyID }
        if abandoned, let created, !Task.isCancelled {
            outcome.message += await cancel(created.reference(on: configuration.endpoint))
        }
        return failed(outcome.code, outcome.message, assemblyID: known?.assemblyID, assemblyURL: url)
    }

    /// Cancels an abandoned Assembly; what became of it, for the failure's message.
    private func cancel(_ assembly: AssemblyReference) async -> String {
        do {
            _ = try await retrying { try await client.cancel(assembly) }
            return "; Assembly \(assembly.id) was canceled (the next run makes a new one)"
        } catch {
            return "; Assembly \(assembly.id) could not be canceled (\(error)); the service ends it when it expires"
        }
    }

    /// The Assembly from an earlier run if it still accepts uploads, is executing or completed;
    /// otherwise (it failed, or the service has none) a new one, with its id saved before the
    /// request. When the service cannot say which, the run fails rather than risk a duplicate.
    private func findOrCreate() async throws -> AssemblyState {
        // --force redoes the work: a new Assembly, whatever an earlier run left.
        // A state file is not trusted to name an Assembly: an id that is not one starts afresh.
        let earlier = configuration.force || fresh ? nil : await state.entry(planned.id, endpoint: configuration.endpointKey).flatMap { AssemblyID.isValid($0.assemblyID) ? $0 : nil }
        // Why the earlier run's Assembly is not picked up, when it ended unfinished: its work is done again.
        var unfinished: String?
        if let entry = earlier, entry.assemblyURL != nil {
            // The stored URL where it is on the endpoint's origin, else the endpoint's own for the
            // id (the embedded engine gets a new port each run; a URL elsewhere is never asked).
            let byID = AssemblyReference(id: entry.assemblyID)
            let stored = entry.reference(on: configuration.endpoint)
            for candidate in stored == byID ? [byID] : [stored, byID] {
                do {
                    // The endpoint's own URL is asked as patiently as any request; an older
                    // address (a gone embedded engine's port) only once.
                    let status = candidate == byID ? try await retrying { try await client.status(candidate) } : try await client.status(candidate)
                    if status.isBusy || status.isCompleted {
                        events(.created(job: planned.job, planID: planned.id, assemblyID: entry.assemblyID, resumed: true))
                        return status
                    }
                    unfinished = "Assembly \(entry.assemblyID) of an earlier run ended unfinished (\(status.ok?.rawValue ?? "no status"))"
                    break  // canceled or aborted: this plan needs a new Assembly
                } catch let failure as AssemblyClient.Failure where candidate != byID || failure.settlesTheAssembly {
                    // Failed or cut off (the process that handed it its files ended), or gone: a new one.
                    if failure.settlesTheAssembly {
                        unfinished = failure.httpStatus == 200
                            ? "Assembly \(entry.assemblyID) of an earlier run ended unfinished (\(failure.code.rawValue): \(failure.message))"
                            : "Assembly \(entry.assemblyID) of an earlier run is no longer on the service"
                    }
                    continue
                } catch let failure as AssemblyClient.Failure {
                    throw AssemblyClient.Failure(
                        code: failure.code, message: "cannot tell whether Assembly \(entry.assemblyID) of an earlier run is still going (\(failure.message)), "
                            + "so no new one is made; run again later, or with --force to start over",
                        retryIn: failure.retryIn, isTransient: false, httpStatus: failure.httpStatus)
                }
            }
        }
        guard configuration.createsAssemblies else { throw Self.notSubmitted }
        if let unfinished {
            events(.startingOver(job: planned.job, planID: planned.id, reason: unfinished + "; its work starts over in a new Assembly"))
        }
        let id = earlier.flatMap { $0.assemblyURL == nil ? $0.assemblyID : nil }
            ?? RandomID.hex32()
        try await state.set(.init(assemblyID: id, assemblyURL: nil, endpoint: configuration.endpointKey, job: planned.job, partOf: partOf), for: planned.id)
        var status: AssemblyState
        do {
            status = try await retrying {
                try await pacer.admit()
                return try await create(id: id)
            }
        } catch let failure as AssemblyClient.Failure {
            // The create went through before (its answer was lost): the Assembly exists.
            guard failure.code == .assemblyIDTaken else { throw failure }
            status = try await client.status(AssemblyReference(id: id))
        }
        // A server may answer with an id of its own choosing: that is the Assembly's id from now on.
        let assemblyID = status.assemblyID ?? id
        // The embedded engine's record is named relative to the state, which then holds after the project moves.
        let kept = status.assemblyURL.map { PortableURL.kept($0, in: FolderPath.of(configuration.stateFile), project: configuration.workspace.directory) }
        try await state.set(.init(assemblyID: assemblyID, assemblyURL: kept, endpoint: configuration.endpointKey, job: planned.job, partOf: partOf), for: planned.id)
        events(.created(job: planned.job, planID: planned.id, assemblyID: assemblyID, resumed: false))
        return status
    }

    /// One create, signed afresh (a new nonce and expiry: a server that refuses a reused signature
    /// takes the retry of a create whose answer was lost). A signature refused as expired is made
    /// once more when that answer showed the service's clock to be off by more than was allowed for.
    private func create(id: String) async throws -> AssemblyState {
        let skew = configuration.serviceClock.skew
        do {
            let (params, signature) = try await signedParams()
            return try await client.create(id: id, params: params, signature: signature, expectedUploads: planned.files.count)
        } catch let failure as AssemblyClient.Failure where failure.code == .authExpired && configuration.signer != nil && configuration.serviceClock.skew != skew {
            let (params, signature) = try await signedParams()
            return try await client.create(id: id, params: params, signature: signature, expectedUploads: planned.files.count)
        }
    }

    /// The instructions as the service takes them: a manifest Template becomes its `template_id`.
    private var instructions: JSONValue {
        guard var object = planned.instructions.objectValue, let name = object.removeValue(forKey: "template")?["name"]?.stringValue else {
            return planned.instructions
        }
        if let id = templateIDs[name] { object["template_id"] = .string(id) }
        return .object(object)
    }

    private func signedParams() async throws -> (String, String?) {
        guard let key = configuration.authKey, let signer = configuration.signer else {
            return (instructions.serialized(), nil)
        }
        // Expiring by the service's clock, which judges it.
        let now = configuration.serviceClock.now
        let params = AuthParams.prepare(instructions, key: key, lifetime: configuration.lifetime, now: now).serialized()
        return (params, try await signer.sign(params))
    }

    /// Uploads the files the Assembly has not received yet, resuming partial uploads.
    private func upload(to status: AssemblyState) async throws {
        guard let tusURL = status.tusURL, let assemblyURL = status.assemblyURL, let assembly = status.reference,
              let stateDirectory = configuration.workspace.uploadsDirectory(assemblyID: assembly.id) else {
            throw AssemblyClient.Failure(code: .noTusURL, message: "the Assembly status has no tus_url", retryIn: nil, isTransient: false)
        }
        let finished = status.finishedUploadFields
        let pending = planned.files.enumerated().filter { !finished.contains(Self.field($0.offset)) }
        for (_, file) in pending {
            try ChangedFile.check(configuration.workspace.directory + "/" + file.path, planned: file, project: configuration.inputsFolder)
        }
        let files = pending.map { index, file in
            UploadFile(
                path: configuration.workspace.directory + "/" + file.path,
                metadata: MediaTypes.uploadMetadata(for: file.path).merging(["assembly_url": assemblyURL, "fieldname": Self.field(index)]) { $1 },
                known: file.modified.map { (file.sha256, $0) })
        }
        let done = planned.files.enumerated().filter { finished.contains(Self.field($0.offset)) }.reduce(Int64(0)) { $0 + $1.element.size }
        progress(done)
        var options = UploadOptions(
            chunkSize: configuration.chunkSize, parallel: configuration.uploadParallel,
            stateDirectory: stateDirectory, bodyLimits: configuration.bodyLimits)
        options.confinedTo = configuration.inputsFolder
        options.clock = clock
        let (job, planID, events) = (planned.job, planned.id, events)
        options.hold = UploadHold(pacer: pacer) { wait in
            events(.holding(job: job, planID: planID, reason: "an upload was refused for load (HTTP 429)", wait: wait))
        }
        // Per file, the bytes confirmed or on the wire; the Assembly's progress is their sum.
        let counter = ProgressSum<Int>(base: done)
        let results = try await uploads.upload(files, to: tusURL, for: assembly, options: options) { file in
            progress(counter.set(file.index, min(file.total, file.confirmed + file.inFlight)))
        }
        for result in results { _ = try result.get() }
        // A file written to while it was being sent: the Assembly got bytes that were never planned.
        // Its change time is not compared now: an engine on this machine linked it. That engine
        // checks it from then on; over HTTP, the upload's checksum is the planned SHA-256.
        for (_, file) in pending {
            try ChangedFile.check(configuration.workspace.directory + "/" + file.path, planned: file, project: configuration.inputsFolder, comparingStatus: false)
        }
    }

    /// Polls until the Assembly ends: soon after the uploads, then about once a second, slowing gently; rate limits wait
    /// `retryIn` (with jitter); transient failures back off.
    private func wait(_ initial: AssemblyState) async throws -> AssemblyState {
        var status = initial
        guard let assembly = status.reference else { return status }
        // The first look is at once (the last upload's answer is in; the server may be done), then
        // small Assemblies finish fast: after a tenth of the interval, widening by a quarter each
        // time (about ten polls in the first two seconds), or from 5 ms doubling (`eagerPolls`),
        // then slowly.
        var interval = Duration.zero
        let uploaded = clock.now
        // A server that holds status requests (`StatusWait`) is asked again at once after each
        // answer: it answers when the Assembly moves on, or after the wait it was asked for.
        var holds = initial.statusWait
        while status.isBusy {
            // Every file went up: an Assembly still waiting for uploads long after will never start.
            if status.ok == AssemblyStatusCode.uploading, clock.now - uploaded > Self.uploadingGrace {
                throw AssemblyClient.Failure(
                    code: .uploadsMissing,
                    message: "the Assembly still waits for uploads after all \(planned.files.count) were sent (the server lost one); run the same command again: this Assembly's files go to a new one, and the rest stays cached")
            }
            guard clock.now + interval < deadline else { throw Self.timedOut }
            try await clock.sleep(for: interval)
            if let wait = holds.map({ min($0, Int((deadline - clock.now).components.seconds)) }), wait > 0,
               status.ok == AssemblyStatusCode.executing {
                let asked = clock.now
                do throws(AssemblyClient.Failure) {
                    status = try await client.status(assembly, wait: wait)
                } catch {
                    // A proxy that gives up on a held request sooner (a 504), or a hiccup: poll as any other server.
                    guard error.isTransient else { throw error }
                    holds = nil
                    continue
                }
                // One that answered at once with nothing new does not hold requests: it is polled as any other.
                if status.ok == AssemblyStatusCode.executing, clock.now - asked < .seconds(wait) / 2 { holds = nil }
                interval = .zero
                continue
            }
            status = try await retrying { try await client.status(assembly) }
            interval = Self.nextPoll(after: interval, settled: configuration.pollInterval, eager: configuration.eagerPolls)
        }
        return status
    }

    /// The wait before the next poll, after waiting `interval` before this one (zero: the first).
    static func nextPoll(after interval: Duration, settled: Duration, eager: Bool) -> Duration {
        if interval == .zero { return eager ? .milliseconds(5) : settled / 10 }
        if interval < settled { return min(interval * (eager ? 2 : 1.25), settled) }
        return min(interval * 1.2, .seconds(5))
    }

    /// A transient failure: nine attempts in all, after its `retryIn`, else doubling from 1 s to
    /// 30 s, with up to a tenth more at random.
    static let retryPolicy = RetryPolicy(
        attempts: 9, backoff: .doubling(cap: .seconds(30), jitter: 0.1), longestStatedWait: .seconds(AssemblyClient.Failure.longestWait))
    /// Attempts, in all, at a server that was never reached: a wrong or down endpoint fails soon.
    static let connectionAttempts = 4

    /// Runs `call`, retrying transient failures (rate limits after `retryIn`, others with backoff).
    private func retrying<T: Sendable>(_ call: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                try await pacer.waitOutPause()
                let answer = try await call()
                pacer.endpointDown.store(false, ordering: .relaxed)
                return answer
            } catch let failure as AssemblyClient.Failure where failure.isTransient && attempt + 1 < Self.retryPolicy.attempts {
                attempt += 1
                let unreachable = failure.code == .cannotConnect
                if unreachable, pacer.endpointDown.load(ordering: .relaxed) {
                    throw AssemblyClient.Failure(
                        code: failure.code, message: "\(failure.message); the endpoint stopped answering earlier in this run: check that its server is running, then run again")
                }
                if unreachable, attempt >= Self.connectionAttempts {
                    pacer.endpointDown.store(true, ordering: .relaxed)
                    throw AssemblyClient.Failure(
                        code: failure.code, message: "\(failure.message) (\(Self.connectionAttempts) attempts); check the endpoint, and that its server is running")
                }
                guard let pause = Self.retryPolicy.wait(afterAttempt: attempt, advice: .init(statedSeconds: failure.retryIn)) else { throw failure }
                // No retry outlives the run's timeout: say so, with what kept failing.
                guard clock.now + pause < deadline else {
                    throw AssemblyClient.Failure(code: .runTimeout, message: "the run's timeout came while retrying: \(failure)")
                }
                events(.retrying(job: planned.job, planID: planned.id, reason: failure.description, wait: pause,
                                 attempt: attempt + 1, attempts: unreachable ? Self.connectionAttempts : Self.retryPolicy.attempts))
                // A rate limit (said with or without a time to wait) holds every request of the run, not only this one.
                if failure.retryIn != nil || failure.httpStatus == 429 { await pacer.pause(for: pause) }
                try await clock.sleep(for: pause)
            }
        }
    }

    private func entry(_ status: AssemblyState) -> RunResults.Entry {
        guard status.isCompleted else {
            return failed(status.error ?? status.ok.map { APIErrorCode(received: $0.rawValue) } ?? .unknown, status.message ?? "", assemblyID: status.assemblyID, assemblyURL: status.assemblyURL)
        }
        // Results no store step exported live on the service's temporary storage, from about when the run began.
        return RunResults.Entry(completed: status, planned: planned, sent: instructions, temporaryUntil: configuration.resultsLifetime.map { started.addingTimeInterval($0.inSeconds) })
    }

    /// The entry of an Assembly left going: its state as last seen, and where it is.
    private func submitted(_ status: AssemblyState) -> RunResults.Entry {
        RunResults.Entry(
            job: planned.job, planID: planned.id, assemblyID: status.assemblyID, assemblyURL: status.assemblyURL,
            status: AssemblyStatusCode.executing.rawValue,  // its files are all up
            message: "left running (--no-wait); 'pipeline status MANIFEST --wait' or another run collects it", cached: false, files: planned.files, results: [:])
    }

    private func failed(_ code: APIErrorCode, _ message: String, assemblyID: String?, assemblyURL: String?) -> RunResults.Entry {
        RunResults.Entry(
            job: planned.job, planID: planned.id, assemblyID: assemblyID, assemblyURL: assemblyURL,
            status: code.rawValue, message: message, cached: false, files: planned.files, results: [:])
    }

    /// Whether `step` of `instructions` is a store robot's (its results are exported, not
    /// temporary); nil for a step the instructions do not hold (a Template's): its results get no
    /// expiry, and a missing download is fetched (a 404 then says it is gone).
    static func stores(step: String, in instructions: JSONValue) -> Bool? {
        instructions["steps"]?[step]?["robot"]?.stringValue.map(RobotCatalog.exports.contains)
    }

    static let notSubmitted = AssemblyClient.Failure(
        code: .notStarted, message: "no earlier 'run --no-wait' left an Assembly for this part of the plan (or the files changed since); 'pipeline run' makes it")

    static let timedOut = AssemblyClient.Failure(code: .runTimeout, message: "the Assembly did not finish within the run's timeout (--timeout)")

    /// How long an Assembly may keep saying ASSEMBLY_UPLOADING after every upload finished.
    static let uploadingGrace: Duration = .seconds(120)

    /// The tus `fieldname` of the file at `index`: how uploads are matched back to plan files.
    static func field(_ index: Int) -> String { "file_\(index)" }

    static func index(of field: String) -> Int? {
        field.hasPrefix("file_") ? Int(field.dropFirst(5)) : nil
    }
}

/// The run's pacer as uploads meet it: a pause a rate-limited upload starts holds every request,
/// and is said when it holds them longer than before (parallel uploads meet one limit together).
private struct UploadHold: RequestHold {
    let pacer: CreationPacer
    let announce: @Sendable (Duration) -> Void

    func pause(for duration: Duration) async {
        if await pacer.extend(for: duration) { announce(duration) }
    }

    func waitOutPause() async throws { try await pacer.waitOutPause() }
}
