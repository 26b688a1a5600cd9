import APIClients
import Basics
import Foundation
import Synchronization
import HTTPClient
import Planning
import Wire

/// Runs a plan: what earlier runs made is carried over from the last results (`RunWork`), the
/// Assemblies that make the rest run `concurrency` at a time; results are written atomically at the end (and after each
/// Assembly), then result files are downloaded where jobs ask for it.
public struct Runner: Sendable {
    let plan: Plan
    let configuration: RunConfiguration
    let http: HTTPClient
    let service: any AssemblyService
    let uploads: any UploadService
    let clock: any MonotonicClock

    /// Creates a runner over the configuration's services, or HTTP (`service`, `uploads` and `clock` replace them in tests).
    public init(
        plan: Plan, configuration: RunConfiguration, http: HTTPClient = HTTPClient(), service: (any AssemblyService)? = nil,
        uploads: (any UploadService)? = nil, clock: any MonotonicClock = SystemClock()
    ) {
        self.plan = plan
        self.configuration = configuration
        self.http = http
        self.service = service ?? configuration.services?.assemblies ?? AssemblyClient(http: http, endpoint: configuration.endpoint, clock: configuration.serviceClock)
        self.uploads = uploads ?? configuration.services?.uploads ?? TusUploads(http: http)
        self.clock = clock
    }

    /// Runs everything and returns this run's results; what is written to `configuration.resultsPath`
    /// is those when every Assembly completed, else never less than the last good state (`GoodResults`).
    public func run(events: @escaping @Sendable (RunEvent) -> Void) async throws -> RunResults {
        let started = configuration.serviceClock.machineNow
        // What earlier runs made is taken from the last results, step by step, unless --force redoes it all.
        var work = configuration.force ? RunWork(running: plan) : RunWork.of(
            plan, resultsPath: configuration.resultsPath, endpoint: configuration.endpointKey,
            available: ResultAvailability(localResults: configuration.localResults, downloadsBase: configuration.workspace.directory, now: started))
        let pending = work.units
        let total = pending.reduce(Int64(0)) { $0 + $1.bytes }
        let cached = work.parts.filter(\.isCached).count
        events(.started(assemblies: cached + pending.count, cached: cached, files: plan.fileCount, bytes: plan.byteCount))
        // Progress knows from the start how much there is to send (not "0 B of 0 B").
        events(.uploaded(bytes: 0, total: total))
        let state = try RunState(path: configuration.stateFile)
        let progress = ProgressSum<String>()
        let collected = ResultsCollector()
        let deadline = clock.now + configuration.timeout
        let pacer = CreationPacer(perMinute: configuration.maxAssembliesPerMinute, clock: clock)
        // The manifest's Templates first: the Assemblies that use them need their ids, and a
        // Template changed on the service is brought back even when every Assembly is cached.
        var templateIDs: [String: String] = [:]
        // A reviewed plan's Templates are the ones reviewed; the manifest adds those no Assembly uses.
        let wanted = TemplateSync.wanted(in: plan).merging(configuration.declaredTemplates) { planned, _ in planned }
        if !wanted.isEmpty {
            let applied = try await TemplateSync.apply(wanted, client: TemplateClient(configuration: configuration, http: http))
            for (name, result) in applied.sorted(by: { $0.key < $1.key }) {
                templateIDs[name] = result.id
                events(.template(name: name, id: result.id, action: result.action))
            }
            let synced = TemplateSync.records(of: applied, wanted: wanted)
            if !synced.isEmpty {
                do { try configuration.workspace.recordTemplates(synced, endpoint: configuration.endpointKey) } catch {
                    events(.warning("the Templates' ids could not be saved (\(error)); the next run finds them by name"))
                }
            }
        }

        let assemblies = AssemblyBatch(
            configuration: configuration, service: service, uploads: uploads, clock: clock, pacer: pacer, state: state, deadline: deadline,
            templateIDs: templateIDs, started: started, events: events, partOf: work.partOf)
        // A run that does not complete everything never writes less than the last good state.
        var good = GoodResults(path: configuration.resultsPath, usualEndpoint: configuration.usualEndpointKey)
        // Results are saved as Assemblies end, at most every few seconds (and always at the
        // end): rewriting the whole file per Assembly would grow with the square of their number.
        var saved = clock.now
        await assemblies.run(pending, fresh: [], progress: { planID, bytes in events(.uploaded(bytes: progress.set(planID, bytes), total: total)) }) { entry in
            collected.add(entry)
            if clock.now - saved >= Self.saveInterval {
                // The results file is written again at the end, where a failure stops the run.
                do { try good.settled(results(work, collected), planned: plan.assemblies).results.write(to: configuration.resultsPath, below: configuration.workspace.directory) } catch {
                    events(.warning("the results so far could not be saved: \(error)"))
                }
                saved = clock.now
            }
        }
        var (final, written, gone) = try await finish(results(work, collected), redone: [], good: &good, events: events)
        // Assemblies whose downloads are missing and whose results the server no longer has
        // (expired, or gone) are made again, once, whole, in new Assemblies.
        if !gone.isEmpty {
            let redo = plan.assemblies.filter { gone[$0.id] != nil }
            for planned in redo {
                events(.redoing(job: planned.job, planID: planned.id, reason: "downloads are missing and \(gone[planned.id] ?? "")"))
            }
            for index in work.parts.indices where gone[work.parts[index].planned.id] != nil {
                work.parts[index] = RunWork.Part(running: work.parts[index].planned)
            }
            let more = total + redo.reduce(Int64(0)) { $0 + $1.bytes }
            await assemblies.run(redo, fresh: Set(gone.keys), progress: { planID, bytes in events(.uploaded(bytes: progress.set(planID, bytes), total: more)) }) {
                collected.add($0)
            }
            (final, written, gone) = try await finish(results(work, collected), redone: Set(gone.keys), good: &good, events: events)
        }
        if let note = good.written?.note { events(.warning(note)) }
        // A whole run (not a shard's share) that completed everything: older plans' state can go.
        let wholeRunCompleted = configuration.shard == nil && final.assemblies.allSatisfy(\.isCompleted)
        // A run that made nothing (everything cached) keeps the state of the run that did.
        let forgetting = wholeRunCompleted && !pending.isEmpty
        events(.phase(.writingResults))
        do { try await state.fold(keeping: forgetting ? Set(work.units.map(\.id) + plan.assemblies.map(\.id)) : nil) } catch {
            events(.warning("the run state could not be compacted (\(error)); it is kept as a journal and read as before"))
        }
        // The plan that ran, for the next plan to explain its changes against (a shard ran only part of it).
        if configuration.shard == nil {
            do {
                try FileManager.default.createDirectory(atPath: configuration.workspace.manifestStateDirectory, withIntermediateDirectories: true)
                try AtomicFile.update(configuration.workspace.lastPlanFile, durable: false) { emit in plan.writeJSON(emit) }
            } catch {
                events(.warning("the plan that ran could not be kept (\(error)); the next plan is compared by counts only"))
            }
        }
        if wholeRunCompleted { events(.phase(.cleaningUp)) }
        pruneEngine(good.written?.results ?? final, wholeRunCompleted: wholeRunCompleted, events: events)
        // Then files pipeline wrote earlier that no result names now are removed, in folders no job downloads into too.
        let workspace = configuration.workspace
        if wholeRunCompleted, !configuration.downloads.isEmpty || FileManager.default.fileExists(atPath: workspace.downloadsFile) {
            let ledger = DownloadLedger(
                file: workspace.downloadsFile, trusted: workspace.directory, written: DownloadDigests(file: workspace.downloadDigestsFile, trusted: workspace.directory),
                keepsAbandoned: workspace.resultsOverridden || configuration.downloadsOverridden)
            ledger.prune(keeping: Dictionary(uniqueKeysWithValues: Set(configuration.downloads.values.map(\.folder)).map { ($0, written[$0] ?? []) }))
        }
        return final
    }

    /// Writes the results, then downloads what is not in place: the results, the paths written
    /// per folder, and the entries (by plan id, with why) whose missing results the server no
    /// longer has. Such a result of an Assembly just made again (`redone`) is a failure. What is
    /// written keeps the last good state (`good`); only this run's own completed entries are downloaded.
    private func finish(
        _ results: RunResults, redone: Set<String>, good: inout GoodResults, events: @Sendable (RunEvent) -> Void
    ) async throws -> (RunResults, [String: Set<ExactName>], [String: String]) {
        events(.phase(.writingResults))
        var final = results
        // Where each result is downloaded, known before the results are written, which name it.
        let placements = placeDownloads(&final)
        if let cdn = configuration.smartCDN { final = final.signingSmartCDN(cdn.jobs, authKey: cdn.key, secret: cdn.secret, now: Date()) }
        let settled = good.settled(final, planned: plan.assemblies)
        try settled.results.write(to: configuration.resultsPath, below: configuration.workspace.directory)
        let digests = DownloadDigests(file: configuration.workspace.downloadDigestsFile, trusted: configuration.workspace.directory)
        defer { digests.save() }
        let downloader = Downloader(
            http: http, localResults: configuration.localResults, trusted: configuration.workspace.directory, clock: clock,
            digests: digests)
        var written: [String: Set<ExactName>] = [:]
        var gone: [String: String] = [:]
        // The files to fetch (or find in place), counted as each Assembly's are done.
        let files = { (paths: [String: [String?]]) in paths.values.reduce(0) { $0 + $1.count { $0 != nil } } }
        let total = final.assemblies.reduce(0) { sum, entry in
            sum + (settled.own.contains(entry.planID) && configuration.downloads[entry.job] != nil ? placements[entry.planID].map(files) ?? 0 : 0)
        }
        var done = 0
        if total > 0 { events(.phase(.downloading(done: 0, total: total))) }
        for entry in final.assemblies where settled.own.contains(entry.planID) {
            guard let folder = configuration.downloads[entry.job]?.folder, let paths = placements[entry.planID] else { continue }
            let report = try await downloader.download(entry, into: folder, paths: paths, now: configuration.serviceClock.machineNow)
            done += files(paths)
            if total > 0 { events(.phase(.downloading(done: done, total: total))) }
            if let reason = report.gone.first {
                guard !redone.contains(entry.planID) else {
                    throw Downloader.Failure(description: "a result of Assembly \(entry.assemblyID ?? entry.planID), just made again, cannot be downloaded: \(reason)")
                }
                gone[entry.planID] = report.gone.count == 1 ? reason : "\(reason) (and \(report.gone.count - 1) more)"
            }
            written[folder, default: []].formUnion(report.written)
        }
        return (final, written, gone)
    }

    /// Lays out the downloads of the completed entries, folder by folder, and records each
    /// result's `localPath`; the paths below each folder by plan id.
    private func placeDownloads(_ final: inout RunResults) -> [String: [String: [String?]]] {
        let downloading = final.assemblies.filter { $0.isCompleted && configuration.downloads[$0.job] != nil }
        var placements: [String: [String: [String?]]] = [:]
        for (folder, entries) in Dictionary(grouping: downloading, by: { configuration.downloads[$0.job]?.folder ?? "" }) {
            let layouts = entries.compactMap { entry in configuration.downloads[entry.job].map { (entry, $0.layout) } }
            placements.merge(DownloadLayout.paths(of: layouts)) { first, _ in first }
            let relative = configuration.workspace.pathFromManifest(folder)
            let shown = relative == "." ? "" : relative + "/"
            for index in final.assemblies.indices {
                guard let paths = placements[final.assemblies[index].planID], configuration.downloads[final.assemblies[index].job]?.folder == folder else { continue }
                for (step, files) in final.assemblies[index].results {
                    for file in files.indices { final.assemblies[index].results[step]?[file].localPath = paths[step]?[file].map { shown + $0 } }
                }
            }
        }
        return placements
    }

    /// Records what of the embedded engine's data the manifest's results name; after a whole run
    /// that completed, removes the Assemblies no manifest's results name (superseded, failed,
    /// canceled), and the uploads and results of sources gone from those they name in part.
    private func pruneEngine(_ final: RunResults, wholeRunCompleted: Bool, events: @Sendable (RunEvent) -> Void) {
        let workspace = configuration.workspace
        // Results written elsewhere (--results) are not the manifest's: what its own results need stays.
        guard !workspace.resultsOverridden else { return }
        do { try workspace.recordEngineReferences(final, shard: configuration.shard) } catch {
            return events(.warning("which engine results this manifest needs could not be saved (\(error)); the engine's data is not pruned"))
        }
        guard wholeRunCompleted, let prune = configuration.pruneEngine else { return }
        do {
            let pruned = prune(try workspace.engineReferencesOfEveryManifest())
            if pruned.assemblies + pruned.uploads + pruned.results > 0 {
                events(.pruned(assemblies: pruned.assemblies, uploads: pruned.uploads, results: pruned.results, bytes: pruned.bytes))
            }
        } catch {
            events(.warning("\(error)"))
        }
    }

    /// How often results are saved while a run goes on.
    static let saveInterval: Duration = .seconds(5)

    /// The results so far: each planned Assembly's entry, from what it carries over and the entries of its Assemblies that ended.
    private func results(_ work: RunWork, _ collected: ResultsCollector) -> RunResults {
        let entries = collected.entries
        return RunResults(
            pipeline: plan.pipeline, manifest: configuration.workspace.manifestFromResults, shard: configuration.shard.map { "\($0.index)/\($0.count)" }, endpoint: configuration.endpointKey,
            assemblies: work.parts.compactMap { $0.entry(entries) }.map { entry in
                var entry = entry
                entry.attempt = nil  // carried over by a run that completed it: no longer news
                return entry
            })
    }
}

/// The entries of the Assemblies that ended, by their ids, filled from concurrent tasks.
final class ResultsCollector: Sendable {
    private let stored = Mutex<[String: RunResults.Entry]>([:])

    func add(_ entry: RunResults.Entry) { stored.withLock { $0[entry.planID] = entry } }
    var entries: [String: RunResults.Entry] { stored.withLock { $0 } }
}
