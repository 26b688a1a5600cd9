import Basics
import Client
import Engine
import Foundation
import HTTPClient
import HTTPServer
import Planning
import Spec

/// Turns a manifest and the command line into a run configuration: endpoint (starting the
/// embedded engine for `endpoint: local`), credentials and signer, paths, downloads.
struct RunSetup {
    var configuration: RunConfiguration
    var engine: LocalEngine?

    static let publicEndpoint = "https://api2.transloadit.com"

    /// The endpoint as the user names it: `--endpoint`, the manifest's, `$TRANSLOADIT_ENDPOINT`, else the public API.
    static func endpointName(_ manifest: Manifest, override: String?, environment: [String: String]) -> String {
        override ?? manifest.endpoint.map {
            if case .url(let url) = $0.value { return url }
            return "local"
        } ?? environment["TRANSLOADIT_ENDPOINT"] ?? publicEndpoint
    }

    /// The configuration of a command that talks to the manifest's endpoint; for 'local', the
    /// embedded engine, started here (waiting for another command using it, unless `waitForEngine` is false).
    static func prepare(
        manifest: Manifest, workspace: Workspace, arguments: ParsedArguments, context: CommandContext, waitForEngine: Bool = true,
        interrupted: @escaping @Sendable () -> Bool = { false }
    ) throws(DiagnosticsError) -> RunSetup {
        let endpointText = endpointName(manifest, override: arguments.value("endpoint"), environment: context.environment)
        var downloads: [String: String] = [:]
        for job in manifest.jobs {
            if let folder = arguments.value("download") { downloads[job.name.value] = folder }
            else if let folder = job.download { downloads[job.name.value] = manifest.path(folder.value) }
        }
        var configuration = RunConfiguration(
            endpoint: endpointText, authKey: nil, signer: nil,
            lifetime: manifest.auth.expiresIn?.value ?? AuthSettings.defaultExpiresIn, workspace: workspace, downloads: downloads)
        configuration.endpointKey = Self.withoutCredentials(endpointText)
        configuration.chunkSize = manifest.upload.chunkSize?.value.bytes
        if endpointText == "local" {
            let engine: LocalEngine
            do throws(FileError) { try workspace.refuseLinks() } catch {
                throw DiagnosticsError(.error("run.workspace-link", error.description))
            }
            do {
                var settings = LocalEngine.Configuration(dataDirectory: workspace.engineDirectory)
                let output = context.output
                settings.stopWaiting = interrupted
                if waitForEngine {
                    settings.whileWaitingForTheFolder = {
                        output.error("pipeline: waiting for \(workspace.engineDirectory), in use by another pipeline command or a pipeline serve (Ctrl-C gives up)\n")
                    }
                }
                engine = try LocalEngine(settings, server: HTTPServer.Configuration(host: "127.0.0.1", port: 0))
            } catch {
                throw DiagnosticsError(.error("run.engine", "the local engine could not start: \(error)"))
            }
            configuration.endpoint = "http://127.0.0.1:\(engine.port)"
            configuration.rewriteURL = { url in engine.localPath(of: url).map { "file://" + $0 } ?? url }
            configuration.localResults = workspace.engineDirectory
            return RunSetup(configuration: configuration, engine: engine)
        }
        guard endpointText.lowercased().hasPrefix("http://") || endpointText.lowercased().hasPrefix("https://") else {
            throw DiagnosticsError(.error("run.bad-endpoint", "endpoint '\(endpointText)' is not 'local' or an http(s) URL"))
        }
        // Credentials naming unset variables were fine for planning; here they are needed.
        guard manifest.auth.unresolved.isEmpty else { throw DiagnosticsError(manifest.auth.unresolved) }
        let signed = manifest
        guard let key = signed.auth.key?.value else {
            throw DiagnosticsError(.error("run.no-auth-key", "running against \(endpointText) needs an Auth Key", at: nil,
                                          hint: "set 'auth.key: ${TRANSLOADIT_KEY}' in the manifest and export TRANSLOADIT_KEY"))
        }
        configuration.authKey = key
        do throws(SignerError) {
            configuration.signer = try SignerFactory.make(signed.auth.signer?.value, environment: context.environment)
        } catch {
            throw DiagnosticsError(.error("run.signer", error.message, at: signed.auth.signer?.location))
        }
        return RunSetup(configuration: configuration, engine: nil)
    }
}

extension RunSetup {
    /// `https://host/...` without any `user:password@`, so an endpoint can be recorded in results.
    static func withoutCredentials(_ endpoint: String) -> String {
        guard let schemeEnd = endpoint.range(of: "://") else { return endpoint }
        let rest = endpoint[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return endpoint }
        return String(endpoint[..<schemeEnd.upperBound]) + String(rest[rest.index(after: at)...])
    }
}
