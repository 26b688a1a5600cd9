import APIClients
import Basics
import Client
import Foundation
import HTTPServer
import Wire

/// `pipeline notify verify|receive`: checks Assembly notifications, or receives those of the
/// Assemblies a `run --no-wait` left running and then collects their results.
struct NotifyCommand: Command {
    static let spec = CommandSpec(
        name: "notify",
        summary: "Verify an Assembly notification's signature, or receive a run's notifications and collect its results.",
        discussion: """
        'verify [FILE]' reads a notification as a receiver got it (the request body: multipart/form-data or \
        urlencoded with the fields transloadit and signature, or a JSON object of the two), from FILE or standard \
        input, and checks the signature with the Auth Secret (sha384:, sha256: or sha1: HMACs, or the older bare \
        SHA-1). 'receive MANIFEST' listens for the notifications of the Assemblies 'pipeline run MANIFEST --no-wait' \
        left running (their jobs' notify_url must reach it), refuses any whose signature does not hold, and once every \
        one has ended collects the results and downloads as 'pipeline status MANIFEST --wait' does. The secret is read \
        from the environment, never from the command line.
        """,
        arguments: [
            .init(name: "ACTION", help: "verify or receive."),
            .init(name: "TARGET", help: "verify: the saved body (default: standard input); receive: the manifest.", optional: true),
        ],
        options: [
            .init(name: "content-type", valueName: "TYPE", help: "verify: the request's Content-Type (for a multipart body's boundary)."),
            CommandSpec.secretEnvOption,
            .init(name: "host", valueName: "ADDRESS", help: "receive: the address to listen on (default 127.0.0.1)."),
            .init(name: "port", valueName: "PORT", help: "receive: the port to listen on (default 8788; 0 picks a free one)."),
            .init(name: "timeout", valueName: "DURATION", help: "receive: give up waiting after this long (default 8h)."),
            .init(name: "ask-every", valueName: "DURATION", help: "receive: how often to ask the service about Assemblies not reported yet, whose notifications may never come (default 30s)."),
            .init(name: "endpoint", valueName: "URL", help: "receive: the Assembly API the run used instead of the manifest's."),
        ],
        examples: [
            "pipeline notify verify saved-body.txt --content-type 'multipart/form-data; boundary=xyz'",
            "pipeline notify receive pipeline.yml --port 8788",
        ])

    /// The most a notification's body may hold (as the receiver takes).
    static let largestBody = NotificationReceiver.largestBody

    let arguments: NotifyArguments

    init(_ arguments: NotifyArguments) {
        self.arguments = arguments
    }

    /// How the command speaks.
    private let view = NotifyView()

    func run(_ context: CommandContext) async throws -> Int32 {
        guard let secret = context.secret(in: arguments.secretVariable) else { return ExitCode.failure }
        switch arguments.action {
        case .verify(let file, let contentType): return verify(file, contentType: contentType, secret: secret, context: context)
        case .receive(let manifest, let host, let port, let timeout, let askEvery, let endpoint):
            return await receive(manifest, host: host, port: port, timeout: timeout, askEvery: askEvery, endpoint: endpoint, secret: secret, context: context)
        }
    }

    private func verify(_ file: String?, contentType: String?, secret: String, context: CommandContext) -> Int32 {
        let source = file.map { "'\($0.printable)'" } ?? "standard input"
        let body: Data
        do {
            guard let handle = file.map({ FileHandle(forReadingAtPath: $0) }) ?? FileHandle.standardInput else {
                throw FileError(path: file ?? "-", operation: "open", code: errno)
            }
            // One byte past the limit tells a body that is too large.
            body = try handle.read(upToCount: Self.largestBody + 1) ?? Data()
        } catch {
            view.failure("\(error)", context: context)
            return ExitCode.failure
        }
        guard body.count <= Self.largestBody else {
            view.tooLarge(source, limit: Self.largestBody, context: context)
            return ExitCode.failure
        }
        let notification: ReceivedNotification
        do throws(ReceivedNotification.Unreadable) {
            notification = try ReceivedNotification(body: body, contentType: contentType)
        } catch {
            view.unreadable(source, error, context: context)
            return ExitCode.failure
        }
        guard notification.signature != nil else {
            view.unsigned(source, context: context)
            return ExitCode.failure
        }
        guard notification.isSigned(with: secret) else {
            view.forged(source, secretVariable: arguments.secretVariable, context: context)
            return ExitCode.failure
        }
        let status = notification.status
        view.valid(assembly: status?.assemblyID, state: status?.word, context: context)
        return ExitCode.success
    }

    private func receive(
        _ manifest: String, host: String, port: UInt16, timeout: Duration, askEvery: Duration, endpoint: String?, secret: String, context: CommandContext
    ) async -> Int32 {
        guard let (workspace, address) = LastRun.workspaceAndAddress(manifest, endpoint: endpoint, context: context) else { return ExitCode.failure }
        let pending = (workspace.lastResults()?.assemblies ?? []).filter(\.isPending)
        let expected = Set(pending.compactMap(\.assemblyID))
        guard !expected.isEmpty else {
            view.nothingToWaitFor(manifest, context: context)
            return ExitCode.failure
        }
        let (output, view) = (context.output, view)
        let receiver = NotificationReceiver(secret: secret, expected: expected) { line in view.log(line, output: output) }
        let server: HTTPServer
        do {
            server = try HTTPServer(HTTPServer.Configuration(host: host, port: port), handler: receiver)
        } catch {
            view.cannotListen(host: host, port: port, error, context: context)
            return ExitCode.failure
        }
        view.receiving(host: host, port: server.port, count: expected.count, context: context)
        // The service is asked too, now and then: an Assembly whose notification never comes still ends the wait.
        let client = AssemblyClient(http: context.http, endpoint: "")
        // Only the endpoint's origin is asked, whatever host the results file names.
        let urls = Dictionary(pending.compactMap { entry in entry.assemblyID.flatMap { id in address.flatMap(entry.assemblyURL(on:)).map { (id, $0) } } },
                              uniquingKeysWith: { first, _ in first })
        let asking = Task {
            while await Task.pause(for: askEvery) {
                for id in receiver.waitingFor.sorted() {
                    guard let url = urls[id] else { continue }
                    // A status the service cannot give now is asked again next time round.
                    guard let state = try? await client.status(at: url), !state.isBusy else { continue }  // asked again next time round
                    receiver.record(id, state.word ?? "?", ended: true, by: .service)
                }
            }
        }
        let ended = await receiver.allEnded(within: timeout)
        asking.cancel()
        // The answer to the last notification is on its way: a moment for it to leave before the server goes.
        _ = await Task.pause(for: .milliseconds(500))
        server.stop()
        guard ended else {
            view.timedOut(receiver.waitingFor.count, timeout: timeout, manifest: manifest, context: context)
            return ExitCode.failure
        }
        // Every one ended: collecting asks each once, and writes the results and downloads.
        do throws(UsageError) {
            return await RunCommand(try RunArguments.collecting(manifest, endpoint: endpoint)).runOnce(context)
        } catch {
            view.failure(error.message, context: context)
            return ExitCode.failure
        }
    }
}
