import Basics
import Client
import Engine
import Foundation
import HTTPServer
import Spec

/// `pipeline serve`: the local engine, until SIGINT or SIGTERM.
struct ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Run the local engine: a tus server (and the Assembly API) on this machine.",
        discussion: """
        Listens on 127.0.0.1 unless --host says otherwise, prints the URL it serves and logs one line per \
        request. State lives in --data-dir and survives a restart: unfinished uploads continue where they \
        stopped. Stops cleanly on Ctrl-C (SIGINT) or SIGTERM. URLs in answers are built from the address \
        served (or --public-url), never from an unchecked Host header: a request for another host gets 421.
        """,
        options: [
            .init(name: "host", valueName: "ADDRESS", help: "The IPv4 or IPv6 address to listen on (default 127.0.0.1; ::1 for IPv6 loopback, :: for every address)."),
            .init(name: "port", valueName: "N", help: "The port (default 8787; 0 picks a free one)."),
            .init(name: "data-dir", valueName: "DIR", help: "Where uploads and results are kept (default .pipeline/engine)."),
            .init(name: "auth-key", valueName: "KEY", help: "Require Assemblies signed for this Auth Key (with --secret-env)."),
            CommandSpec.secretEnvOption,
            .init(name: "policy", valueName: "FILE", help: "Refuse Assemblies that this policy does not allow."),
            .init(name: "rate-limit", valueName: "N/DURATION", help: "Answer 429 RATE_LIMIT_REACHED past N Assemblies per DURATION, such as 250/1m."),
            .init(name: "public-url", valueName: "URL", help: "The URL clients reach the engine at (behind a proxy); result and upload URLs use it."),
            .init(name: "trust-proxy", help: "Build URLs from the Forwarded or X-Forwarded-Host/-Proto headers a proxy in front sets."),
            .init(name: "trailers", help: "Offer tus checksum trailers behind a proxy too (one that passes chunked bodies unbuffered, such as nginx with proxy_request_buffering off)."),
            .init(name: "no-handoff", help: "Take every upload's bytes over HTTP: offer clients on this machine no Unix socket to hand files over as open descriptors."),
            .init(name: "max-media-duration", valueName: "DURATION", help: "Refuse audio and video longer than this (default 4h)."),
            .init(name: "max-image-pixels", valueName: "N", help: "Refuse images and document pages over N pixels (default 100000000)."),
            .init(name: "max-import-size", valueName: "SIZE", help: "The largest file /http/import fetches (default 10GiB)."),
            .init(name: "allow-loopback-import", help: "Let /http/import fetch from, and notify_url notify, this machine (127.0.0.1, ::1); private networks stay refused."),
            .init(name: "credentials", valueName: "FILE", help: "Named credentials for /s3/store and /s3/import steps: a JSON object of sets by name, each with key, secret and optional bucket, region, host (the variables PIPELINE_CREDENTIALS_<NAME>_KEY, _SECRET… add more)."),
            .init(name: "retention", valueName: "DURATION", help: "Remove the uploads and results of Assemblies ended longer ago than this, and tus uploads abandoned past their expiry, on a sweep (default 24h, as the hosted service; off keeps them)."),
            .init(name: "record-retention", valueName: "DURATION", help: "Remove the records of Assemblies whose files went after this (default 30d; off keeps them)."),
            .init(name: "state", valueName: "URL", help: "Share Assemblies, uploads, used signatures, rate limits and the run queue with other engines in this Postgres database (postgres://USER:PASSWORD@HOST:PORT/DB); with --store. See docs/deploy.md."),
            .init(name: "store", valueName: "URL", help: "Share uploads and results with other engines in this bucket (s3://BUCKET/PREFIX, ?endpoint=URL for an S3-compatible service), signed with $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY; with --state."),
            .init(name: "lease", valueName: "DURATION", help: "With --state: how long an engine's claim on an Assembly's run or an upload holds without being renewed; another engine takes over after it (default 10s)."),
            .init(name: "move-from", valueName: "DIR", help: "Copy the Assemblies, files, Templates and unexpired signatures of an engine's data folder into --state and --store, then exit (stop that engine first; safe to run again)."),
            .init(name: "quiet", help: "Do not log requests."),
        ] + TLSFiles.options,
        examples: ["pipeline serve", "pipeline serve --port 0 --data-dir /tmp/engine"])

    let arguments: ServeArguments

    init(_ arguments: ServeArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let signals = SignalCenter.waiter()
        let (output, view) = (context.output, ServerView(name: "pipeline serve"))
        var configuration = LocalEngine.Configuration(dataDirectory: arguments.dataDirectory)
        configuration.rateLimit = arguments.rateLimit
        configuration.robotLimits = arguments.robotLimits
        configuration.trailersBehindProxy = arguments.trailersBehindProxy
        configuration.handoff = arguments.handoff
        if let file = arguments.credentialsFile {
            switch Self.storageCredentials(file, environment: context.environment) {
            case .success(let storage): configuration.storage = storage
            case .failure(let error):
                view.failure("\(error)", context: context)
                return ExitCode.failure
            }
        } else {
            configuration.storage = StorageCredentials(environment: context.environment)
        }
        if let authKey = arguments.authKey {
            guard let secret = context.environment[arguments.secretVariable], !secret.isEmpty else {
                view.failure("--auth-key needs the Auth Secret in $\(arguments.secretVariable)", context: context)
                return ExitCode.failure
            }
            configuration.credentials = (authKey, secret)
        }
        if let policyPath = arguments.policyPath {
            let loaded = PolicyLoader(environment: context.environment).load(path: policyPath)
            context.report(loaded.diagnostics, sources: loaded.sources)
            guard let policy = loaded.value else { return ExitCode.failure }
            configuration.policy = policy
        }
        let tls: (keyPEM: String, certificatePEM: String)?
        switch TLSFiles.load(arguments.tls) {
        case .success(let files): tls = files
        case .failure(let error):
            view.failure(error.message, context: context)
            return ExitCode.failure
        }
        let log: (@Sendable (String) -> Void)? = arguments.quiet ? nil : { @Sendable line in view.log(line, output: output) }
        configuration.notificationLog = log
        configuration.retention = arguments.retention
        configuration.retentionLog = { @Sendable line in view.log(line, output: output) }
        if let shared = arguments.shared {
            guard let key = context.environment["AWS_ACCESS_KEY_ID"], let secret = context.environment["AWS_SECRET_ACCESS_KEY"], !key.isEmpty, !secret.isEmpty else {
                view.failure("--store needs the bucket's key and secret in $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY", context: context)
                return ExitCode.failure
            }
            var backend = SharedBackend(state: shared.state, store: shared.store, storeKey: key, storeSecret: secret)
            backend.lease = arguments.lease
            configuration.shared = backend
            if let folder = arguments.moveFrom { return move(from: folder, into: backend, view: view, context: context) }
        }
        let engine: LocalEngine
        do {
            engine = try LocalEngine(configuration, server: HTTPServer.Configuration(host: arguments.host, port: arguments.port, tls: tls, origin: arguments.origin), log: log)
        } catch let busy as DataFolderInUse {
            view.failure("\(busy)", hint: "stop that engine, or give this one another --data-dir", context: context)
            return ExitCode.failure
        } catch let shared as SharedBackendError {
            view.failure(shared.message, context: context)
            return ExitCode.failure
        } catch {
            view.cannotListen(error, context: context)
            return ExitCode.failure
        }
        let scheme = tls == nil ? "http" : "https"
        let served = "\(scheme)://\(HTTPServer.urlHost(arguments.host)):\(engine.port)"
        let base = arguments.origin.fixed ?? served
        view.listening(served, context: context)
        view.tusEndpoint(base + LocalEngine.tusPath, context: context)
        view.handoff(engine.handoffState, context: context)
        if configuration.credentials == nil { view.unauthenticated(context: context) }
        let signal = await signals.next()
        view.stopping(signal, context: context)
        engine.stop()
        return ExitCode.success
    }
}

extension ServeCommand {
    /// `--move-from`: copies `folder` into the shared state and files, and says what it copied.
    private func move(from folder: String, into backend: SharedBackend, view: ServerView, context: CommandContext) -> Int32 {
        do {
            let moved = try SharedMove.run(from: folder, into: backend) { line in view.log("warning: " + line, output: context.output) }
            view.log("moved \(moved.assemblies) Assemblies (\(moved.alreadyThere) there already), \(moved.files) files (\(moved.missingFiles) no longer in the folder), "
                + "\(moved.templates) Templates and \(moved.signatures) unexpired signatures", output: context.output)
            return ExitCode.success
        } catch {
            view.failure("\(error)", context: context)
            return ExitCode.failure
        }
    }

    /// The credentials in `file` (see `StorageCredentials.parse`) and the environment's.
    static func storageCredentials(_ file: String, environment: [String: String]) -> Result<StorageCredentials, CredentialsFileError> {
        guard let data = FileManager.default.contents(atPath: file) else {
            return .failure(CredentialsFileError(file: file, problem: "it cannot be read"))
        }
        // The parser's message could quote the file: only its position is said.
        guard let json = JSONValue.parseIfValid(data) else {
            return .failure(CredentialsFileError(file: file, problem: "it is not valid JSON"))
        }
        do throws(CredentialsFileError) {
            return .success(StorageCredentials(file: try StorageCredentials.parse(json, file: file), environment: environment))
        } catch {
            return .failure(error)
        }
    }
}
