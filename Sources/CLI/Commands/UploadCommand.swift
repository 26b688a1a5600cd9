import APIClients
import Basics
import Client
import Foundation
import HTTPClient
import Spec
import Wire

/// `pipeline upload`: resumable, parallel uploads to any tus server.
struct UploadCommand: Command {
    static let spec = CommandSpec(
        name: "upload",
        summary: "Upload files to a tus server, resumably and in parallel, and print each upload URL.",
        discussion: """
        Uses the tus resumable upload protocol 1.0.0. Each file is sent in one request unless --chunk-size \
        is given. After a dropped connection or an offset conflict the upload continues from the server's \
        offset; an interrupted command run again with the same files resumes from the bytes the server \
        kept (upload URLs are kept in --state-dir until each upload completes). With checksums a server \
        drops a request it could not verify whole, so an interruption re-sends at most the chunk in flight \
        (8 MiB; --chunk-size for less). A 413 from a proxy halves the request size.
        """,
        arguments: [.init(name: "FILE", help: "The files to upload.", variadic: true)],
        options: [
            .init(name: "endpoint", valueName: "URL", help: "The tus creation endpoint, such as http://127.0.0.1:1080/files/."),
            .init(name: "metadata", valueName: "KEY=VALUE", help: "Upload-Metadata for every file (filename and filetype are set by default).", repeatable: true),
            .init(name: "chunk-size", valueName: "SIZE", help: "Send at most SIZE bytes per request (for proxies that limit bodies), such as 50MB."),
            .init(name: "parallel", valueName: "N", help: "Upload N files at once (default 4)."),
            .init(name: "checksum", valueName: "MODE", help: "auto (default: the first the server offers of crc32, sha256, sha1, md5), off, or one of those.",
                  choices: ["auto", "off", "crc32", "sha256", "sha1", "md5"]),
            .init(name: "retry-delays", valueName: "LIST", help: "Waits before retries, such as 0s,1s,3s,5s (the default)."),
            .init(name: "state-dir", valueName: "DIR", help: "Where upload URLs are kept for resuming (default .pipeline/uploads)."),
            .init(name: "no-handoff", help: "Send every byte over HTTP, even to a pipeline serve on this machine that offers to take the files as open descriptors."),
            .init(name: "json", help: "Print the results as JSON."),
            .init(name: "quiet", help: "Do not show progress."),
            CommandSpec.caCertOption,
        ],
        examples: [
            "pipeline upload video.mp4 --endpoint http://127.0.0.1:1080/files/",
            "pipeline upload images/*.png --endpoint https://tus.example.com/files/ --parallel 8 --json",
        ])

    let arguments: UploadArguments

    init(_ arguments: UploadArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let uploads = arguments.files.map { path in
            UploadFile(path: path, metadata: MediaTypes.uploadMetadata(for: path).merging(arguments.metadata) { _, given in given })
        }
        let view: any UploadView = arguments.json ? JSONUploadView() : HumanUploadView()
        let reporter = ProgressReporter(output: context.output, enabled: !arguments.quiet, totalFiles: arguments.files.count)
        let uploader = TusUploader(endpoint: arguments.endpoint, options: arguments.options, http: context.http)
        let results: [Result<UploadResult, any Error>]
        do {
            results = try await uploader.upload(uploads) { reporter.update($0) }
        } catch {
            reporter.finish()
            view.failure(error, unreachable: (error as? TusError)?.kind == .transport, context: context)
            return ExitCode.failure
        }
        reporter.finish()
        view.show(zip(arguments.files, results).map { (path: $0, result: $1) }, context: context)
        return results.allSatisfy { if case .success = $0 { true } else { false } } ? ExitCode.success : ExitCode.failure
    }
}
