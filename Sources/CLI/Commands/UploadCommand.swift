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

    let files: [String]
    let endpoint: String
    let metadata: [String: String]
    let options: UploadOptions
    let json: Bool
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let name = Self.spec.name
        files = arguments.positionals
        guard let endpoint = arguments.value("endpoint") else { throw UsageError("missing --endpoint URL", command: name) }
        guard endpoint.lowercased().hasPrefix("http://") || endpoint.lowercased().hasPrefix("https://") else {
            throw UsageError("--endpoint must be an http(s) URL, not '\(endpoint)'", command: name)
        }
        self.endpoint = endpoint
        var metadata: [String: String] = [:]
        for pair in arguments.values("metadata") {
            guard let equals = pair.firstIndex(of: "="), TusProtocol.isValidMetadataKey(String(pair[..<equals])) else {
                throw UsageError("--metadata needs KEY=VALUE with a key without spaces or commas, not '\(pair)'", command: name)
            }
            metadata[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        self.metadata = metadata
        var options = UploadOptions(stateDirectory: arguments.value("state-dir") ?? Workspace.here.uploadsDirectory)
        options.remembersFinished = true
        options.handoff = !arguments.flag("no-handoff")
        options.chunkSize = try arguments.size("chunk-size", minimum: UploadSettings.smallestChunk)
        options.parallel = try arguments.integer("parallel", in: OptionLimits.parallel, default: options.parallel)
        // auto, the default: the first algorithm the server offers, as the help says.
        options.checksum = .firstOffered
        if let text = arguments.value("checksum") {
            switch text {
            case "auto": options.checksum = .firstOffered
            case "off": options.checksum = .off
            default:
                guard let algorithm = ChecksumAlgorithm(rawValue: text) else {
                    throw UsageError("--checksum must be auto, off, crc32, sha256, sha1 or md5, not '\(text)'", command: name)
                }
                options.checksum = .algorithm(algorithm)
            }
        }
        if let text = arguments.value("retry-delays") {
            let delays = text.split(separator: ",").map { Self.isZero($0) ? Duration.zero : DurationText.parse(String($0)) }
            guard !delays.contains(where: { $0 == nil }) else {
                throw UsageError("--retry-delays needs durations such as 0s,1s,3s,5s, not '\(text)'", command: name)
            }
            options.retryDelays = delays.compactMap { $0 }
        }
        self.options = options
        json = arguments.flag("json")
        quiet = arguments.flag("quiet")
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let uploads = files.map { path in
            UploadFile(path: path, metadata: MediaTypes.uploadMetadata(for: path).merging(metadata) { _, given in given })
        }
        let reporter = ProgressReporter(output: context.output, enabled: !quiet, totalFiles: files.count)
        let uploader = TusUploader(endpoint: endpoint, options: options, http: context.http)
        let results: [Result<UploadResult, any Error>]
        do {
            results = try await uploader.upload(uploads) { reporter.update($0) }
        } catch {
            reporter.finish()
            let unreachable = (error as? TusError)?.kind == .transport
            context.output.failure("\(error)", hint: unreachable ? "check that --endpoint names a running tus server" : nil)
            return ExitCode.failure
        }
        reporter.finish()
        return report(results, context: context)
    }

    private func report(_ results: [Result<UploadResult, any Error>], context: CommandContext) -> Int32 {
        var uploaded: [JSONValue] = []
        var failed: [JSONValue] = []
        for (path, result) in zip(files, results) {
            switch result {
            case .success(let upload):
                uploaded.append(.object([
                    "path": .string(path), "url": .string(upload.url), "size": .int(Int(upload.size)),
                    "resumed_from": .int(Int(upload.resumedFrom)),
                ]))
                if !json { context.output.out("\(path)\t\(upload.url)\n") }
            case .failure(let error):
                failed.append(.object(["path": .string(path), "error": .string("\(error)")]))
                context.output.failure("\(path): \(error)")
            }
        }
        if json {
            context.output.out(JSONValue.object(["uploads": .array(uploaded), "failed": .array(failed)]).serialized(pretty: true) + "\n")
        }
        return failed.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// `0`, `0s`, `00ms`: a delay of nothing, which duration settings elsewhere do not allow.
    private static func isZero(_ text: Substring) -> Bool {
        text.first == "0" && text.drop(while: { $0 == "0" }).allSatisfy(\.isLetter)
    }
}
