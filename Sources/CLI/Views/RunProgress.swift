import Basics
import Client

/// What a run's progress line says, from the run's events and the times they came at: the phase
/// (uploading, processing, then writing results, downloading, cleaning up), Assemblies done with
/// their pace and ETA, and the bytes, with the upload's pace while it lasts. Paces are over the
/// last few seconds (`RateWindow`), so they stop falling once a phase ends, and an ETA counts down.
struct RunProgress {
    typealias Instant = ContinuousClock.Instant

    /// Files are handed over where they are (the embedded engine): none are sent, none have a pace.
    let handsOver: Bool
    private(set) var total = 0
    private(set) var done = 0
    private(set) var cachedAtStart = 0
    private(set) var inFlight = 0
    private(set) var bytes: Int64 = 0
    private(set) var allBytes: Int64 = 0
    /// What the run does once its Assemblies have ended; nil while they run.
    private(set) var after: RunPhase?
    private var ended: RateWindow
    private var sent: RateWindow

    /// Progress from `start`, for a run whose files are sent or, with `handsOver`, handed over.
    init(start: Instant, handsOver: Bool) {
        self.handsOver = handsOver
        ended = RateWindow(start: start)
        // Bytes move in many small steps: their pace is the last seconds' alone, nothing once they stop.
        sent = RateWindow(start: start, steps: 0)
    }

    /// The run begins with `assemblies`, `cached` of them done already.
    mutating func started(assemblies: Int, cached: Int) {
        (total, done, cachedAtStart) = (assemblies, cached, cached)
    }

    /// An Assembly was created or found again: Assemblies run (again, after a redo).
    mutating func created() {
        inFlight += 1
        after = nil
    }

    /// `bytes` of `all` are sent (or handed over).
    mutating func uploaded(_ bytes: Int64, of all: Int64, at now: Instant) {
        (self.bytes, allBytes) = (bytes, all)
        sent.record(Double(bytes), at: now)
    }

    /// An Assembly ended.
    mutating func finished(at now: Instant) {
        done += 1
        inFlight = max(0, inFlight - 1)
        ended.record(Double(done - cachedAtStart), at: now)
    }

    /// An Assembly counted done runs again (its downloads are missing and its results gone).
    mutating func redoing() {
        done = max(0, done - 1)
        after = nil
    }

    /// The run went on to `phase`; whether that is news (a new phase, not more of the same).
    mutating func entered(_ phase: RunPhase) -> Bool {
        defer { after = phase }
        switch (after, phase) {
        case (.downloading?, .downloading): return false
        default: return after != phase
        }
    }

    /// Whether the bytes are still being sent.
    var uploading: Bool { !handsOver && allBytes > 0 && bytes < allBytes }

    /// The phase the line begins with.
    var phase: String { after?.name ?? (uploading ? "uploading" : "processing") }

    /// The line at `now`. What matters first, as an 80-column terminal cuts the end: the phase,
    /// Assemblies done and the run's ETA; then the bytes, with the upload's own pace and ETA.
    mutating func line(at now: Instant) -> String {
        let assemblies = "\(done) of \(total) Assemblies done"
        if let after {
            if case .downloading(let count, let files) = after { return "\(after.name): \(count) of \(plural(files, "result file")) (\(assemblies))" }
            return "\(after.name) (\(assemblies))"
        }
        var line = "\(phase): \(assemblies) (\(String(format: "%.1f", max(0, ended.rate(at: now))))/s)"
        if let eta = ended.eta(total: Double(total - cachedAtStart), at: now) { line += ", ETA \(Self.format(eta))" }
        if inFlight > 0 { line += ", \(inFlight) in flight" }
        guard allBytes > 0 else { return line }
        let verb = handsOver ? "handed over" : "uploaded"
        guard bytes < allBytes else { return line + "; \(ByteSize(bytes: allBytes)) \(verb)" }
        line += "; \(ByteSize(bytes: bytes)) of \(ByteSize(bytes: allBytes)) \(verb)"
        guard uploading else { return line }
        let left = sent.eta(total: Double(allBytes), at: now).map { ", \(Self.format($0)) left" } ?? ""
        return line + " (\(ByteSize(bytes: Int64(max(0, sent.rate(at: now)))))/s\(left))"
    }

    /// Whole seconds, rounded up: "4s", "2m30s".
    static func format(_ duration: Duration) -> String {
        DurationText.format(.seconds(Int64(duration.inSeconds.rounded(.up))))
    }
}
