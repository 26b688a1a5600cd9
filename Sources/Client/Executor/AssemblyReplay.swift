import APIClients
import Basics
import Foundation
import HTTPClient
import Planning
import Wire

/// Runs an Assembly of the last results again on its service (`POST …/replay`), its uploads as
/// they are there, with the instructions `plan` now gives the same files; the new entry takes the
/// old one's place in the results, as a run's would.
public struct AssemblyReplay: Sendable {
    let plan: Plan
    let configuration: RunConfiguration
    let client: AssemblyClient
    /// The clock polls wait on.
    let clock: any MonotonicClock

    /// Replays with `configuration`'s endpoint, signer and results lifetime, polling on `clock`.
    public init(plan: Plan, configuration: RunConfiguration, http: HTTPClient, clock: any MonotonicClock = SystemClock()) {
        (self.plan, self.configuration, self.clock) = (plan, configuration, clock)
        client = AssemblyClient(http: http, endpoint: configuration.endpoint, clock: configuration.serviceClock)
    }

    /// What became of one entry.
    public enum Outcome: Sendable {
        /// Replayed as `entry` (completed, or failed with its code).
        case replayed(RunResults.Entry)
        /// Not replayed, and why.
        case skipped(String)
    }

    /// Replays `entry`'s Assembly and waits for the new one to end.
    public func replay(_ entry: RunResults.Entry) async -> Outcome {
        // The results file says where the Assembly is; only the endpoint's own origin is asked.
        guard entry.assemblyURL?.lowercased().hasPrefix("http") == true, let url = entry.assemblyURL(on: configuration.endpoint) else {
            return .skipped("it has no Assembly on a server")
        }
        // Each file by its exact path and content (`PlannedFile` compares paths byte for byte).
        let files = Set(entry.files)
        guard let planned = plan.assemblies.first(where: { $0.job == entry.job && Set($0.files) == files }) else {
            return .skipped("its files are not one Assembly of the plan any more; 'pipeline run' processes them")
        }
        guard planned.instructions["template"] == nil else { return .skipped("its job uses a manifest Template; 'pipeline run --force' runs it again") }
        do {
            let parent = try await client.status(at: url)
            // Each planned file as the field it was uploaded with: the replay's results find their sources by it.
            guard Set(parent.uploads.map(\.field)) == Set(planned.files.indices.map(AssemblyRun.field)) else {
                return .skipped("Assembly \(entry.assemblyID ?? "?") holds only some of its files (made step by step); 'pipeline run --force' runs them again")
            }
            var signature: String?
            var params = planned.instructions.serialized()
            if let key = configuration.authKey, let signer = configuration.signer {
                params = AuthParams.prepare(planned.instructions, key: key, lifetime: configuration.lifetime, now: configuration.serviceClock.now).serialized()
                signature = try await signer.sign(params)
            }
            var status = try await client.replay(url, params: params, signature: signature)
            let started = Date()
            while status.isBusy, let next = status.assemblyURL {
                try await clock.sleep(for: configuration.pollInterval)
                status = try await client.status(at: next)
            }
            guard status.isCompleted else {
                return .replayed(RunResults.Entry(
                    job: planned.job, planID: planned.id, assemblyID: status.assemblyID, assemblyURL: status.assemblyURL,
                    status: status.word ?? APIErrorCode.unknown.rawValue, message: status.message, cached: false, files: planned.files, results: [:]))
            }
            var replayed = RunResults.Entry(
                completed: status, planned: planned, sent: planned.instructions, temporaryUntil: configuration.resultsLifetime.map { started.addingTimeInterval($0.inSeconds) })
            if let digests = StepDigests.of(planned.instructions) {
                for file in planned.files { replayed.steps[ExactName(file.path)] = digests }
            }
            return .replayed(replayed)
        } catch let failure as AssemblyClient.Failure {
            return .replayed(RunResults.Entry(
                job: planned.job, planID: planned.id, assemblyID: entry.assemblyID, assemblyURL: entry.assemblyURL,
                status: failure.code.rawValue, message: failure.message, cached: false, files: planned.files, results: [:]))
        } catch let error as SignerError {
            return .skipped("its params could not be signed: \(error.message)")
        } catch {
            return .skipped("\(error)")
        }
    }
}
