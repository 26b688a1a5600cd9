import APIClients
import Basics
import Client
import Spec
import Wire

/// `pipeline upload`'s command line, parsed once.
struct UploadArguments: CommandArguments {
    /// The files to upload.
    var files: [String]
    /// `--endpoint`: the tus creation endpoint.
    var endpoint: String
    /// `--metadata KEY=VALUE`, each.
    var metadata: [String: String]
    /// Chunks, parallel uploads, checksums, retries and where upload URLs are kept.
    var options: UploadOptions
    /// `--json`.
    var json: Bool
    /// `--quiet`: no progress.
    var quiet: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let name = UploadCommand.spec.name
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

    /// `0`, `0s`, `00ms`: a delay of nothing, which duration settings elsewhere do not allow.
    private static func isZero(_ text: Substring) -> Bool {
        text.first == "0" && text.drop(while: { $0 == "0" }).allSatisfy(\.isLetter)
    }
}
