import Basics
import Crypto

/// What `pipeline run` would do: every Assembly with its instructions and files. Contains no
/// secret and nothing time-dependent, so planning the same input twice gives the same bytes.
public struct Plan: Sendable, Equatable {
    /// The plan format version.
    public static let formatVersion = 1

    /// The pipeline's name.
    public var pipeline: String
    /// The manifest path as given.
    public var manifest: String
    /// The Assemblies, job by job in manifest order.
    public var assemblies: [PlannedAssembly]

    /// Creates a plan.
    public init(pipeline: String, manifest: String, assemblies: [PlannedAssembly]) {
        self.pipeline = pipeline
        self.manifest = manifest
        self.assemblies = assemblies
    }

    /// The job names, in order of first appearance.
    public var jobs: [String] {
        var seen: Set<String> = []
        return assemblies.map(\.job).filter { seen.insert($0).inserted }
    }

    /// The number of files over all Assemblies.
    public var fileCount: Int { assemblies.reduce(0) { $0 + $1.files.count } }

    /// The number of bytes over all Assemblies.
    public var byteCount: Int64 { assemblies.reduce(0) { $0 + $1.bytes } }
}

/// One planned Assembly.
public struct PlannedAssembly: Sendable, Equatable {
    /// A stable id: derived from the job, the instructions and the files' paths and content.
    public var id: String
    /// The job it belongs to.
    public var job: String
    /// The Assembly Instructions (`steps`, `template_id`, `fields`, `notify_url`).
    public var instructions: JSONValue
    /// The files it receives, sorted by path.
    public var files: [PlannedFile]

    /// Creates a planned Assembly, deriving its id.
    public init(job: String, instructions: JSONValue, files: [PlannedFile]) {
        self.job = job
        self.instructions = instructions
        self.files = files
        self.id = Self.id(job: job, instructions: instructions, files: files)
    }

    /// Creates a planned Assembly with a known id (when reading a plan file).
    public init(id: String, job: String, instructions: JSONValue, files: [PlannedFile]) {
        self.id = id
        self.job = job
        self.instructions = instructions
        self.files = files
    }

    /// The total size of its files.
    public var bytes: Int64 { files.reduce(0) { $0 + $1.size } }

    /// The first 32 hex digits of the SHA-256 of the canonical JSON of job, instructions and files.
    /// The canonical JSON is written directly, keys in byte order (`files`, `instructions`, `job`),
    /// as `JSONValue.serialized` would write it, without a tree of values per file.
    public static func id(job: String, instructions: JSONValue, files: [PlannedFile]) -> String {
        var canonical: [UInt8] = []
        canonical.reserveCapacity(files.count * 128 + 512)
        canonical += #"{"files":["#.utf8
        for (index, file) in files.enumerated() {
            if index > 0 { canonical.append(UInt8(ascii: ",")) }
            canonical.append(UInt8(ascii: "["))
            JSONValue.writeString(file.path, to: &canonical)
            canonical.append(UInt8(ascii: ","))
            canonical.appendDecimal(file.size)
            canonical += ",\"".utf8
            file.digest.appendHex(to: &canonical)
            canonical += "\"]".utf8
        }
        canonical += #"],"instructions":"#.utf8
        instructions.write(to: &canonical, pretty: false, depth: 1)
        canonical += #","job":"#.utf8
        JSONValue.writeString(job, to: &canonical)
        canonical.append(UInt8(ascii: "}"))
        return String(SHA256.hex(canonical).prefix(32))
    }
}

/// A file in a plan, identified by its path relative to the manifest and its content.
public struct PlannedFile: Sendable, Hashable {
    /// The path relative to the manifest's folder.
    public var path: String
    /// The size in bytes.
    public var size: Int64
    /// The SHA-256 of its content.
    public var digest: SHA256Digest
    /// The modification time (nanoseconds since 1970) when it was hashed; known only to the
    /// process that hashed it (never in plan JSON), so a run can tell a file changed since.
    public var modified: Int64?
    /// The inode and its status change time (nanoseconds) when it was hashed, known only to the
    /// process that hashed it: a rewrite of the same size with its modification time set back
    /// still moves the change time.
    public var status: (inode: UInt64, changed: Int64)?
    /// What its content showed when it was hashed; known only to the process that planned it.
    public var inspection: ContentInspection?

    /// Creates a planned file.
    public init(
        path: String, size: Int64, digest: SHA256Digest, modified: Int64? = nil, status: (inode: UInt64, changed: Int64)? = nil,
        inspection: ContentInspection? = nil
    ) {
        self.path = path
        self.size = size
        self.digest = digest
        self.modified = modified
        self.status = status
        self.inspection = inspection
    }

    /// The lowercase hex SHA-256.
    public var sha256: String { digest.hex }

    /// Files are the same when path (byte for byte: `ExactName`) and content are; when they were
    /// seen does not matter.
    public static func == (lhs: PlannedFile, rhs: PlannedFile) -> Bool {
        ByteOrder.same(lhs.path, rhs.path) && lhs.size == rhs.size && lhs.digest == rhs.digest
    }

    /// Hashes path and content, like `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ExactName(path))
        hasher.combine(size)
        hasher.combine(digest)
    }
}
