import Wire
import Foundation
import Basics

/// Everything the engine knows about one Assembly; saved as JSON in the data folder.
struct AssemblyRecord: Codable, Sendable {
    /// A tus upload announced for this Assembly.
    struct TusLink: Codable, Sendable, Equatable {
        var uploadID: String
        var filename: String
        var fieldname: String
        var size: Int64?
        var offset: Int64
        var finished: Bool
    }

    var id: String
    /// `http://host:port` the Assembly was created through; URLs in its status start with it.
    var origin: String
    /// The params exactly as received.
    var params: String
    var steps: JSONValue
    var fields: [String: JSONValue]
    var notifyURL: String?
    /// The Assembly it replays, for a replay.
    var parentID: String?
    /// The announcement of its end to `notifyURL`, once it ended.
    var notification: AssemblyNotification?
    var expectedTusUploads: Int
    var tusLinks: [TusLink] = []
    var uploads: [AssemblyFile] = []
    var results: [String: [AssemblyFile]] = [:]
    /// Errors steps skipped under `ignore_errors` (`step`, `robot`, `error`, `message`).
    var ignoredErrors: [AssemblyStatusDocument.IgnoredError]?
    /// What tools warned of while making results.
    var warnings: [AssemblyStatusDocument.Warning]?
    /// The stored form of `phase`: the status's `ok` and `error`, as earlier engines wrote them.
    private var ok: AssemblyStatusCode?
    private var error: APIErrorCode?
    private(set) var message: String
    var created: Date
    var finished: Date?
    /// The client's `Transloadit-Client` (or `User-Agent`) header, as the hosted API reports it.
    var clientAgent: String?
    /// When the retention sweep removed its uploads and results (nil while they are kept).
    var filesRemoved: Date?

    /// `ok` and `error` as the record's file stores them.
    var storedPhase: (ok: AssemblyStatusCode?, error: APIErrorCode?) { (ok, error) }

    /// Where it is in its life; moved on only by `apply(_:)`.
    private(set) var phase: AssemblyPhase {
        get { AssemblyPhase(ok: ok, error: error) }
        set { (ok, error) = (newValue.ok, newValue.error) }
    }

    /// A new Assembly: waiting for `expectedTusUploads`, or (expecting none) executing; `execute`
    /// it once stored.
    init(id: String, origin: String, params: String, steps: JSONValue, fields: [String: JSONValue], notifyURL: String?,
         expectedTusUploads: Int, uploads: [AssemblyFile], created: Date, clientAgent: String?) {
        let phase: AssemblyPhase = expectedTusUploads > 0 ? .uploading : .executing
        (self.id, self.origin, self.params, self.steps, self.fields, self.notifyURL) = (id, origin, params, steps, fields, notifyURL)
        (self.expectedTusUploads, self.uploads, self.created, self.clientAgent) = (expectedTusUploads, uploads, created, clientAgent)
        (ok, error, message) = (phase.ok, phase.error, AssemblyLifecycle.message(phase))
    }

    var isTerminal: Bool { phase.isTerminal }

    /// What a status and a result URL say of files the retention removed at `date`.
    func filesRemovedMessage(_ date: Date) -> String {
        "the uploads and results of this Assembly were removed at \(AuthTime.format(date)), when the engine's retention after its end ran out"
    }

    /// Its uploads and results were removed at `date`: the record keeps what they were (names,
    /// sizes, checksums), without their metadata.
    mutating func removeFiles(at date: Date) {
        filesRemoved = date
        for index in uploads.indices { uploads[index].meta = [:] }
        results = results.mapValues { files in files.map { file in
            var file = file
            file.meta = [:]
            return file
        } }
    }
    /// Ended with its end announced (or nothing to announce to): nothing more happens to it unless asked.
    var isSettled: Bool { isTerminal && notification?.state != .pending }
    /// Where the store's index keeps it: live until settled, then ended until its files go.
    var indexPart: AssemblyIndex.Part? { !isSettled ? .live : filesRemoved == nil ? .ended : nil }

    /// Whether every file the record names is inside `root` (the data folder), as written and
    /// with its links resolved.
    func keepsItsFiles(inside root: String) -> Bool {
        let normalizedRoot = RealPath.normalized(root), realRoot = RealPath.of(root) ?? normalizedRoot
        return (uploads + results.values.flatMap { $0 }).allSatisfy { file in
            let written = RealPath.normalized(file.path)
            return file.path.hasPrefix("/") && (RealPath.isInside(written, normalizedRoot) || RealPath.isInside(written, realRoot))
                && RealPath.of(file.path).map { RealPath.isInside($0, realRoot) } ?? true
        }
    }

    /// The record with the path of every file it holds passed through `transform`.
    func mappingFilePaths(_ transform: (String) -> String) -> AssemblyRecord {
        var record = self
        for index in record.uploads.indices { record.uploads[index].path = transform(record.uploads[index].path) }
        record.results = results.mapValues { files in
            files.map { file in
                var file = file
                file.path = transform(file.path)
                return file
            }
        }
        return record
    }

    /// Whether it reads uploads where they are, handed over by a process in this one's memory:
    /// loaded from the data folder, such an Assembly can no longer run (see `LocalEngine`).
    var readsFilesInPlace: Bool { uploads.contains { $0.inPlace != nil } }

    func file(_ id: String) -> AssemblyFile? { (uploads + results.values.flatMap { $0 }).first { $0.id == id } }
    var finishedTusUploads: Int { tusLinks.filter(\.finished).count }
    /// Bytes of the files sent with the creating request plus the announced tus uploads.
    var bytesExpected: Int64 { uploads.filter { !$0.isTusFile }.reduce(0) { $0 + $1.size } + tusLinks.reduce(0) { $0 + ($1.size ?? 0) } }
    var bytesReceived: Int64 { uploads.reduce(0) { $0 + $1.size } + tusLinks.filter { !$0.finished }.reduce(0) { $0 + $1.offset } }
}

extension AssemblyRecord {
    /// Applies `event` to this record (its phase, message, results and end time) and says what
    /// the engine does next. Call inside `AssemblyStore.update`, so each transition is one locked step.
    mutating func apply(_ event: AssemblyEvent, at now: Date = Date()) -> AssemblyAction {
        let (phase, action) = AssemblyLifecycle.next(self.phase, on: event)
        guard phase != self.phase else { return action }
        self.phase = phase
        message = AssemblyLifecycle.message(phase)
        switch event {
        case .stepsFinished(let results, let ignored, let warned):
            self.results = results
            ignoredErrors = ignored
            warnings = warned.isEmpty ? nil : warned
        case .stepsFailed(_, let message), .uploadsFailed(_, let message), .abandoned(_, let message):
            self.message = message
        default:
            break
        }
        if phase.isTerminal {
            finished = now
            // Pending in the same change as the end: an engine that dies right after it leaves the
            // announcement for another (or the next start) to make, never an end nobody announces.
            if notifyURL != nil { notification = AssemblyNotification(state: .pending) }
        }
        return action
    }
}
