import Wire
import Foundation
import Basics
import Planning
import Crypto

/// The results of a run (`schemas/results.schema.json`): per planned Assembly its outcome, its
/// source files and, per step, the result files traced back to their source. Deterministic:
/// Assemblies in plan order, results sorted by source and name. No secret, token or signature.
public struct RunResults: Sendable, Equatable {
    /// One result file.
    public struct ResultFile: Sendable, Equatable {
        /// The source file it was made from (through `original_id`).
        public var source: String?
        /// The result file's name.
        public var name: String
        /// Where to fetch it.
        public var url: String?
        /// Bytes; nil when the server did not say.
        public var size: Int64?
        /// The MD5 digest the server gave (lowercase hex), which a download must match.
        public var md5: String?
        /// The media type.
        public var mime: String?
        /// Facts such as width and height.
        public var meta: JSONValue
        /// Where the run downloaded it, relative to the manifest's folder (absolute when outside it).
        public var localPath: String?
        /// When the service deletes it, for a result kept only on its temporary storage (no store
        /// step exported it): after that it can be made again, never fetched.
        public var expires: Date?

        /// Creates a result file.
        public init(
            source: String?, name: String, url: String?, size: Int64?, md5: String? = nil, mime: String?, meta: JSONValue,
            localPath: String? = nil, expires: Date? = nil
        ) {
            self.source = source
            self.name = name
            self.url = url
            self.size = size
            self.md5 = md5
            self.mime = mime
            self.meta = meta
            self.localPath = localPath
            self.expires = expires
        }
    }

    /// A source file a step left out, as its `ignore_errors` allowed.
    public struct LeftOut: Sendable, Equatable {
        /// The source file (nil when the failure names none, such as an import).
        public var source: String?
        /// The step that failed on it.
        public var step: String
        /// The error code.
        public var error: String
        /// What went wrong.
        public var message: String
    }

    /// What a tool warned of while it made a result of a source file anyway (libvips on a damaged
    /// JPEG: "Corrupt JPEG data").
    public struct Warning: Sendable, Equatable {
        /// The source file (nil when the warning names none).
        public var source: String?
        /// The step whose tool warned ("" when the service named none).
        public var step: String
        /// The tool's words.
        public var message: String
    }

    /// One planned Assembly's outcome.
    public struct Entry: Sendable, Equatable {
        /// The manifest job.
        public var job: String
        /// The planned Assembly's stable id.
        public var planID: String
        /// The Assembly's id on the service.
        public var assemblyID: String?
        /// Where its status can be read.
        public var assemblyURL: String?
        /// `ASSEMBLY_COMPLETED`, or the error code.
        public var status: String
        /// What went wrong, for failures.
        public var message: String?
        /// Whether the results were carried over from an earlier run.
        public var cached: Bool
        /// The source files.
        public var files: [PlannedFile]
        /// Result files per step.
        public var results: [String: [ResultFile]]
        /// Files its steps left out (`ignore_errors`), with why.
        public var leftOut: [LeftOut] = []
        /// What its steps' tools warned of.
        public var warnings: [Warning] = []
        /// Per source path (byte for byte), the steps whose results for it are here, each with its digest
        /// (`StepDigests`): the key under which a later run finds them again, whatever the file is called then.
        public var steps: [ExactName: [String: String]] = [:]
        /// Per source path (byte for byte), its signed Smart CDN URL (the job's `smart_cdn`), signed again by each run.
        public var smartCDNURLs: [ExactName: String] = [:]
        /// A later run's try at it that failed or was cut, recorded beside what it keeps (`Attempt`).
        public var attempt: Attempt?

        /// Whether the Assembly completed.
        public var isCompleted: Bool { status == AssemblyStatusCode.completed }
        /// Whether it was left going (`run --no-wait`): uploaded, not yet ended; a later run collects it.
        public var isPending: Bool { AssemblyStatusCode.busy.contains(AssemblyStatusCode(received: status)) }

        /// Where to ask `endpoint` about its Assembly: the recorded URL only where it is on the
        /// endpoint's origin and names this Assembly, else the endpoint's own URL for the id.
        public func assemblyURL(on endpoint: String) -> String? { StoredAssemblyURL.resolved(assemblyURL, id: assemblyID, on: endpoint) }
    }

    /// The pipeline's name.
    public var pipeline: String
    /// The manifest whose run wrote them, from the results file's folder (its file name when beside
    /// it), so that another manifest does not replace them unawares; nil in files older versions wrote.
    public var manifest: String?
    /// `I/N` for the results of one shard.
    public var shard: String?
    /// The endpoint the Assemblies ran on, as the user named it (`local`, or a URL without
    /// credentials): results are reused only by runs on the same endpoint.
    public var endpoint: String?
    /// One entry per planned Assembly, in plan order.
    public var assemblies: [Entry]

    /// Creates results.
    public init(pipeline: String, manifest: String? = nil, shard: String? = nil, endpoint: String? = nil, assemblies: [Entry]) {
        self.pipeline = pipeline
        self.manifest = manifest
        self.shard = shard
        self.endpoint = endpoint
        self.assemblies = assemblies
    }

    /// Reads a results file, an Assembly at a time (never the whole file's JSON at once), keeping
    /// the entries `keep` accepts; `nil` when missing or unreadable (then nothing is cached).
    /// URLs kept relative to the file (the embedded engine's files) are read as `file://` URLs.
    public static func load(_ path: String, keep: (Entry) -> Bool = { _ in true }) -> RunResults? {
        guard let stream = JSONObjectStream(path: path) else { return nil }
        let folder = FolderPath.of(RealPath.normalized(path))
        var members: [String: JSONValue] = [:]
        var entries: [Entry] = []
        do {
            try stream.read(streaming: "assemblies", element: { item in
                if let entry = Entry(json: item)?.mappingURLs({ PortableURL.resolved($0, in: folder) }), keep(entry) { entries.append(entry) }
            }, member: { members[$0] = $1 })
        } catch {
            return nil
        }
        guard let header = ResultsDocument.Header.read(members) else { return nil }
        return RunResults(pipeline: header.pipeline, manifest: header.manifest, shard: header.shard, endpoint: header.endpoint, assemblies: entries)
    }
}

extension RunResults.Entry {
    /// An entry read from a results file; nil when a required field is missing.
    init?(json item: JSONValue) {
        guard let document = ResultsDocument.Assembly.read(item) else { return nil }
        self.init(document)
    }

    /// An entry as a results file holds it. The file is input (restored from a cache, committed,
    /// or written by a lying server's answers): its words are made printable and an Assembly id
    /// that is not one is dropped.
    init(_ item: ResultsDocument.Assembly) {
        var steps: [ExactName: [String: String]] = [:], smartCDNURLs: [ExactName: String] = [:]
        let files = item.files.compactMap { file -> PlannedFile? in
            guard let digest = SHA256Digest(hex: file.sha256) else { return nil }
            if let done = file.steps { steps[ExactName(file.path)] = done }
            if let url = file.smartCDNURL { smartCDNURLs[ExactName(file.path)] = url }
            return PlannedFile(path: file.path, size: Int64(file.size), digest: digest)
        }
        let results = item.results.mapValues { list in
            list.map { value in
                RunResults.ResultFile(
                    source: value.source, name: value.name?.printable ?? "", url: value.url,
                    size: value.size.flatMap { $0 >= 0 ? Int64($0) : nil }, md5: value.md5hash.flatMap(MD5Text.normalized),
                    mime: value.mime, meta: value.meta ?? .object([:]), localPath: value.localPath, expires: value.expires.flatMap(AuthParams.parseExpires))
            }
        }
        self.init(job: item.job.printable, planID: item.planID.printable, assemblyID: item.assemblyID.flatMap { AssemblyID.isValid($0) ? $0 : nil },
                  assemblyURL: item.assemblyURL, status: item.status.printable, message: item.message?.printable,
                  cached: false, files: files, results: results)
        self.steps = steps
        self.smartCDNURLs = smartCDNURLs
        attempt = item.attempt.map(RunResults.Attempt.init)
        leftOut = item.leftOut.map { value in
            RunResults.LeftOut(source: value.source, step: (value.step ?? "").printable, error: (value.error ?? "").printable, message: (value.message ?? "").printable)
        }
        warnings = item.warnings.map { value in
            RunResults.Warning(source: value.source, step: (value.step ?? "").printable, message: (value.message ?? "").printable)
        }
    }
}

extension RunResults.Entry {
    /// The entry with its Assembly's URL and every result's URL passed through `transform`.
    func mappingURLs(_ transform: (String) -> String) -> Self {
        var entry = self
        entry.assemblyURL = assemblyURL.map(transform)
        entry.results = results.mapValues { files in
            files.map { file in
                var file = file
                file.url = file.url.map(transform)
                return file
            }
        }
        return entry
    }
}
