import Basics
import Foundation

/// What `pipeline serve` says of itself at `/healthz` (JSON) and `/metrics` (Prometheus text):
/// its live Assemblies, what its data folder holds, and its retention sweeps.
struct EngineHealth: Sendable, Equatable {
    /// Assemblies not yet settled (the ones held in memory).
    var liveAssemblies: Int
    /// Assemblies running their steps, and waiting for a turn.
    var running: Int
    var queued: Int
    /// Status requests held until their Assembly moves on.
    var heldStatusRequests: Int
    /// The sweeps' totals; nil for an engine without retention.
    var sweeps: SweepTotals?
    /// Requests sent to the shared database since the engine started; nil for the data folder.
    var databaseRoundTrips: Int?

    /// Where the numbers come from.
    struct Source: Sendable {
        let store: any AssemblyRecords
        let executor: AssemblyExecutor
        let sweep: RetentionSweep?
        /// The round trips to the shared database so far, when there is one.
        var databaseRoundTrips: (@Sendable () -> Int)?

        func now() -> EngineHealth {
            let load = executor.load
            return EngineHealth(liveAssemblies: store.live.count { !$0.isSettled }, running: load.running, queued: load.queued,
                                heldStatusRequests: store.heldCount, sweeps: sweep?.current, databaseRoundTrips: databaseRoundTrips?())
        }
    }

    /// The Prometheus text format's media type.
    static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The `/healthz` answer.
    var json: String {
        var object: [String: JSONValue] = [
            "ok": .string("ENGINE_RUNNING"), "engine": .string("pipeline serve"), "live_assemblies": .int(liveAssemblies),
            "running_assemblies": .int(running), "queued_assemblies": .int(queued), "held_status_requests": .int(heldStatusRequests),
        ]
        if let sweeps {
            object["stored_assemblies"] = .int(sweeps.storedAssemblies)
            object["stored_bytes"] = .int(Int(sweeps.storedBytes))
            object["sweeps"] = .int(sweeps.sweeps)
            object["last_sweep"] = sweeps.lastSweep.map { .string(AuthTime.format($0)) } ?? .null
        }
        if let databaseRoundTrips { object["database_round_trips"] = .int(databaseRoundTrips) }
        return JSONValue.object(object).serialized()
    }

    /// The `/metrics` answer.
    var prometheusText: String {
        var lines: [String] = []
        func metric(_ name: String, _ kind: String, _ help: String, _ value: String) {
            lines += ["# HELP pipeline_\(name) \(help)", "# TYPE pipeline_\(name) \(kind)", "pipeline_\(name) \(value)"]
        }
        metric("live_assemblies", "gauge", "Assemblies not yet ended and announced.", "\(liveAssemblies)")
        metric("running_assemblies", "gauge", "Assemblies running their steps.", "\(running)")
        metric("queued_assemblies", "gauge", "Assemblies waiting for a turn to run.", "\(queued)")
        metric("held_status_requests", "gauge", "Status requests held until their Assembly moves on.", "\(heldStatusRequests)")
        if let sweeps {
            metric("stored_assemblies", "gauge", "Assembly records in the data folder at the last sweep.", "\(sweeps.storedAssemblies)")
            metric("stored_bytes", "gauge", "Bytes of the data folder's files at the last sweep.", "\(sweeps.storedBytes)")
            metric("sweeps_total", "counter", "Retention sweeps run since the engine started.", "\(sweeps.sweeps)")
            metric("last_sweep_timestamp_seconds", "gauge", "When the last retention sweep ran (Unix time).",
                   "\(Int(sweeps.lastSweep?.timeIntervalSince1970 ?? 0))")
            metric("expired_assemblies_total", "counter", "Ended Assemblies whose uploads and results the retention removed.", "\(sweeps.expiredAssemblies)")
            metric("removed_uploads_total", "counter", "Tus uploads removed, abandoned or past the retention.", "\(sweeps.removedUploads)")
            metric("removed_records_total", "counter", "Assembly records removed after the record retention.", "\(sweeps.removedRecords)")
            metric("freed_bytes_total", "counter", "Bytes the retention sweeps freed.", "\(sweeps.freedBytes)")
        }
        if let databaseRoundTrips {
            metric("database_round_trips_total", "counter", "Requests sent to the shared database since the engine started.", "\(databaseRoundTrips)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
