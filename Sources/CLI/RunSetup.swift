import APIClients
import Basics
import Client
import Engine
import Foundation
import HTTPClient
import Planning
import Spec

/// Turns a manifest and the command line into a run configuration: endpoint (starting the
/// embedded engine for `endpoint: local`), credentials and signer, paths, downloads.
struct RunSetup {
    var configuration: RunConfiguration
    var engine: LocalEngine?

    /// The configuration of a command that talks to `endpoint` (the manifest's, or the one the
    /// command line names: `Endpoint.of`), built once: for 'local', the embedded engine, started here (waiting for
    /// another command using it, unless `waitForEngine` is false); `download` and `tuning` are
    /// `run`'s (other commands prepare a configuration too).
    static func prepare(
        manifest: Manifest, workspace: Workspace, endpoint: Endpoint, download: String? = nil, tuning: RunTuning = RunTuning(),
        context: CommandContext, waitForEngine: Bool = true, interrupted: @escaping @Sendable () -> Bool = { false }
    ) throws(DiagnosticsError) -> RunSetup {
        var downloads: [String: DownloadTarget] = [:]
        for job in manifest.jobs {
            let patterns = job.inputs.map(\.value)
            let bundling = Set(job.steps.filter { RobotCatalog.bundling.contains($0.robot) }.map(\.name.value))
            if let folder = download { downloads[job.name.value] = DownloadTarget(folder: folder, patterns: patterns, bundling: bundling) }
            else if let folder = job.download { downloads[job.name.value] = DownloadTarget(folder: manifest.path(folder.value), patterns: patterns, bundling: bundling) }
        }
        var configuration = RunConfiguration(
            endpoint: endpoint.name, authKey: nil, signer: nil,
            lifetime: manifest.auth.expiresIn?.value ?? AuthSettings.defaultExpiresIn, workspace: workspace,
            concurrency: tuning.concurrency, uploadParallel: tuning.uploadParallel, timeout: tuning.timeout, force: tuning.force, downloads: downloads)
        configuration.shard = tuning.shard
        configuration.downloadsOverridden = download != nil
        configuration.inputsFolder = manifest.inputsFolder
        configuration.declaredTemplates = TemplateSync.wanted(in: manifest)
        // The hosted service's budget is per account, which N shards share; any other endpoint
        // runs at full concurrency until it signals a limit (413/429 with retryIn slows the run).
        let hosted = endpoint.isHostedService
        configuration.maxAssembliesPerMinute = tuning.perMinute.map(Double.init) ?? (hosted ? RunTuning.accountBudget / Double(tuning.shard?.count ?? 1) : nil)
        configuration.eagerPolls = !hosted
        // Results no store step exported are deleted by the service a day after the Assembly.
        configuration.resultsLifetime = hosted ? RunTuning.temporaryResultsLifetime : nil
        configuration.endpointKey = endpoint.key
        configuration.chunkSize = tuning.chunkSize ?? manifest.upload.chunkSize?.value.bytes
        guard case .url(let endpointText) = endpoint else {
            let engine: LocalEngine
            do throws(FileError) { try workspace.refuseLinks() } catch {
                throw DiagnosticsError(.error("run.workspace-link", error.description))
            }
            do {
                var settings = LocalEngine.Configuration(dataDirectory: workspace.engineDirectory)
                let notes = NoteView(output: context.output)
                settings.stopWaiting = interrupted
                // Storage steps' named credentials: the runner's PIPELINE_CREDENTIALS_* variables.
                settings.storage = StorageCredentials(environment: context.environment)
                settings.warn = { message in notes.warning(message) }
                // Notifications of the manifest's notify_url are signed with the Auth Secret, when the runner has it.
                settings.notificationSecret = secretVariable(of: manifest).flatMap { context.environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
                if waitForEngine {
                    settings.whileWaitingForTheFolder = {
                        notes.waitingForEngine(workspace.engineDirectory)
                    }
                }
                engine = try LocalEngine.embedded(settings)
            } catch {
                throw DiagnosticsError(.error("run.engine", "the local engine could not start: \(error)"))
            }
            // In this process: no port, files read where they are, results as paths in the data folder.
            configuration.endpoint = engine.address
            configuration.services = engine.services
            configuration.localResults = workspace.engineDirectory
            configuration.pruneEngine = { keeping in
                let collected = engine.collectGarbage(keeping: keeping.whole, trimming: keeping.files)
                return (collected.assemblies, collected.uploads, collected.results, collected.bytes)
            }
            return RunSetup(configuration: configuration, engine: engine)
        }
        if let problem = endpoint.problem { throw DiagnosticsError(.error("run.bad-endpoint", problem.printable)) }
        // Credentials naming unset variables were fine for planning; here they are needed.
        guard manifest.auth.unresolved.isEmpty else { throw DiagnosticsError(manifest.auth.unresolved) }
        let signed = manifest
        guard let key = signed.auth.key?.value else {
            throw DiagnosticsError(.error("run.no-auth-key", "running against \(endpointText) needs an Auth Key", at: nil,
                                          hint: "set 'auth.key: ${TRANSLOADIT_KEY}' in the manifest and export TRANSLOADIT_KEY"))
        }
        configuration.authKey = key
        do throws(SignerError) {
            configuration.signer = try SignerFactory.make(signed.auth.signer?.value, environment: context.environment, http: context.http)
        } catch {
            throw DiagnosticsError(.error("run.signer", error.message, at: signed.auth.signer?.location))
        }
        return RunSetup(configuration: configuration, engine: nil)
    }

    /// The variable holding the Auth Secret this process may use itself: the manifest's secret
    /// signer's (`TRANSLOADIT_SECRET` without one); nil when a signing backend keeps the secret.
    static func secretVariable(of manifest: Manifest) -> String? {
        switch manifest.auth.signer?.value {
        case .secret(let name)?: name
        case nil: "TRANSLOADIT_SECRET"
        default: nil
        }
    }

    /// The jobs' `smart_cdn:` with the Auth Key and the Secret their URLs are signed with, for a
    /// run that writes results (planning needs neither).
    static func smartCDN(_ manifest: Manifest, environment: [String: String]) throws(DiagnosticsError) -> (jobs: [String: SmartCDNSpec], key: String, secret: String)? {
        let jobs = Dictionary(uniqueKeysWithValues: manifest.jobs.compactMap { job in job.smartCDN.map { (job.name.value, $0) } })
        guard !jobs.isEmpty else { return nil }
        guard let variable = secretVariable(of: manifest) else {
            throw DiagnosticsError(.error("run.smart-cdn-signer", "'smart_cdn' URLs are signed with the Auth Secret, which this manifest's signing backend keeps", at: manifest.auth.signer?.location,
                                          hint: "sign them where the secret is ('pipeline sign-url'), or use the secret signer for this manifest"))
        }
        guard let key = manifest.auth.key?.value, let secret = environment[variable], !secret.isEmpty else {
            throw DiagnosticsError(.error("run.smart-cdn-secret", "'smart_cdn' URLs need the Auth Key (auth.key) and the Auth Secret in $\(variable)",
                                          hint: "set auth.key in the manifest and export \(variable)"))
        }
        return (jobs, key, secret)
    }
}
