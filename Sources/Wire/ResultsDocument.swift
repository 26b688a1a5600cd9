import Basics

/// A results file (`results.json`, `schemas/results.schema.json`) as the runner writes it and
/// reads it back, an Assembly at a time (writing: `ResultsDocument+Writing.swift`). The file is
/// input (restored from a cache, committed, or written from a lying server's answers), so it is
/// read leniently, as versions before read it: an entry without its job, plan id or status is no
/// entry, a file without its path, size or digest is left out, and any other member of another
/// type than expected is absent.
public enum ResultsDocument {
    /// The members beside the Assemblies.
    public struct Header: Decodable, Sendable {
        /// The pipeline's name.
        public var pipeline: String
        /// The manifest whose run wrote them.
        public var manifest: String?
        /// `I/N` for one shard's results.
        public var shard: String?
        /// The endpoint the Assemblies ran on.
        public var endpoint: String?

        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: Keys.self)
            pipeline = try values.decode(String.self, forKey: .pipeline)
            (manifest, shard, endpoint) = (values.lenient(String.self, .manifest), values.lenient(String.self, .shard), values.lenient(String.self, .endpoint))
        }

        /// The header `members` (the file's top-level members) hold; nil without the pipeline's name.
        public static func read(_ members: [String: JSONValue]) -> Header? {
            do { return try JSONValueDecoder.decode(Header.self, from: .object(members)) } catch { return nil }  // no results file: nothing cached
        }

        enum Keys: String, CodingKey { case pipeline, manifest, shard, endpoint, version }
    }

    /// One planned Assembly's outcome.
    public struct Assembly: Decodable, Sendable {
        /// The manifest job.
        public var job: String
        /// The planned Assembly's stable id.
        public var planID: String
        /// `ASSEMBLY_COMPLETED`, or an error code.
        public var status: String
        /// The Assembly's id on the service, as written (the reader checks it is one).
        public var assemblyID: String?
        /// Where its status can be read.
        public var assemblyURL: String?
        /// What went wrong, for failures.
        public var message: String?
        /// The source files.
        public var files: [File]
        /// Result files per step; a step whose results are no list has none.
        public var results: [String: [Result]]
        /// Files its steps left out (`ignore_errors`).
        public var leftOut: [LeftOut]
        /// What its steps' tools warned of.
        public var warnings: [Warning]
        /// A later run's failed or cut try at it.
        public var attempt: Attempt?

        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: Keys.self)
            job = try values.decode(String.self, forKey: .job)
            planID = try values.decode(String.self, forKey: .planID)
            status = try values.decode(String.self, forKey: .status)
            (assemblyID, assemblyURL, message) = (values.lenient(String.self, .assemblyID), values.lenient(String.self, .assemblyURL), values.lenient(String.self, .message))
            files = values.lenientList(File.self, .files)
            results = (values.lenient([String: AnyList<Result>].self, .results) ?? [:]).mapValues(\.items)
            leftOut = values.lenient(AnyList<LeftOut>.self, .leftOut)?.items ?? []
            warnings = values.lenient(AnyList<Warning>.self, .warnings)?.items ?? []
            attempt = values.lenient(Attempt.self, .attempt)
        }

        /// The entry `value` holds; nil when it is no entry (see the type).
        public static func read(_ value: JSONValue) -> Assembly? {
            do { return try JSONValueDecoder.decode(Assembly.self, from: value) } catch { return nil }  // no entry: the caller leaves it out
        }

        enum Keys: String, CodingKey {
            case job, status, message, files, results, warnings, attempt
            case planID = "plan_id", assemblyID = "assembly_id", assemblyURL = "assembly_url", leftOut = "left_out"
        }
    }

    /// A source file of an Assembly.
    public struct File: Decodable, Sendable {
        /// Its path, relative to the manifest's folder.
        public var path: String
        /// Bytes.
        public var size: Int
        /// Its SHA-256, as written (the reader checks it is one).
        public var sha256: String
        /// The steps whose results for it are kept, each with its digest.
        public var steps: [String: String]?
        /// Its signed Smart CDN URL.
        public var smartCDNURL: String?

        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: Keys.self)
            path = try values.decode(String.self, forKey: .path)
            size = try values.decode(Int.self, forKey: .size)
            sha256 = try values.decode(String.self, forKey: .sha256)
            steps = values.lenient([String: Lenient<String>].self, .steps)?.compactMapValues(\.value)
            smartCDNURL = values.lenient(String.self, .smartCDNURL)
        }

        enum Keys: String, CodingKey {
            case path, size, sha256, steps
            case smartCDNURL = "smart_cdn_url"
        }
    }

    /// A result file; every member may be missing (an element that is no object has none).
    public struct Result: Decodable, Sendable {
        /// The source file it was made from.
        public var source: String?
        /// The result file's name.
        public var name: String?
        /// Where to fetch it.
        public var url: String?
        /// Bytes, when a whole number.
        public var size: Int?
        /// Its MD5, as written (the reader checks it is one).
        public var md5hash: String?
        /// The media type.
        public var mime: String?
        /// Facts such as width and height, as written (`null` included); nil when missing.
        public var meta: JSONValue?
        /// Where the run downloaded it.
        public var localPath: String?
        /// `2026-12-04T10:00:00Z`, as written.
        public var expires: String?

        public init(from decoder: any Decoder) throws {
            guard let values = Self.object(decoder) else { return }
            (source, name, url) = (values.lenient(String.self, .source), values.lenient(String.self, .name), values.lenient(String.self, .url))
            (size, md5hash, mime) = (values.lenient(Int.self, .size), values.lenient(String.self, .md5hash), values.lenient(String.self, .mime))
            meta = values.contains(.meta) ? values.lenient(JSONValue.self, .meta) ?? .null : nil
            (localPath, expires) = (values.lenient(String.self, .localPath), values.lenient(String.self, .expires))
        }

        fileprivate static func object(_ decoder: any Decoder) -> KeyedDecodingContainer<Keys>? {
            do { return try decoder.container(keyedBy: Keys.self) } catch { return nil }  // no object: every member missing
        }

        enum Keys: String, CodingKey {
            case source, name, url, size, md5hash, mime, meta, expires
            case localPath = "local_path"
        }
    }

    /// A source file a step left out; every member may be missing.
    public struct LeftOut: Decodable, Sendable {
        /// The source file.
        public var source: String?
        /// The step that failed on it.
        public var step: String?
        /// The error code.
        public var error: String?
        /// What went wrong.
        public var message: String?

        public init(from decoder: any Decoder) throws {
            guard let values = Self.object(decoder) else { return }
            (source, step) = (values.lenient(String.self, .source), values.lenient(String.self, .step))
            (error, message) = (values.lenient(String.self, .error), values.lenient(String.self, .message))
        }

        private static func object(_ decoder: any Decoder) -> KeyedDecodingContainer<Keys>? {
            do { return try decoder.container(keyedBy: Keys.self) } catch { return nil }  // no object: every member missing
        }

        enum Keys: String, CodingKey { case source, step, error, message }
    }

    /// What a tool warned of; every member may be missing.
    public struct Warning: Decodable, Sendable {
        /// The source file.
        public var source: String?
        /// The step whose tool warned.
        public var step: String?
        /// The tool's words.
        public var message: String?

        public init(from decoder: any Decoder) throws {
            guard let values = Self.object(decoder) else { return }
            (source, step, message) = (values.lenient(String.self, .source), values.lenient(String.self, .step), values.lenient(String.self, .message))
        }

        private static func object(_ decoder: any Decoder) -> KeyedDecodingContainer<Keys>? {
            do { return try decoder.container(keyedBy: Keys.self) } catch { return nil }  // no object: every member missing
        }

        enum Keys: String, CodingKey { case source, step, message }
    }

    /// A later run's failed or cut try at the Assembly.
    public struct Attempt: Decodable, Sendable {
        /// The error code, or the state it was left in.
        public var status: String
        /// What went wrong.
        public var message: String?
        /// Its Assembly, when one was made.
        public var assemblyID: String?
        /// The endpoint it ran on.
        public var endpoint: String?

        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: Keys.self)
            status = try values.decode(String.self, forKey: .status)
            (message, assemblyID, endpoint) = (values.lenient(String.self, .message), values.lenient(String.self, .assemblyID), values.lenient(String.self, .endpoint))
        }

        /// The attempt `value` holds; nil without its status.
        public static func read(_ value: JSONValue) -> Attempt? {
            do { return try JSONValueDecoder.decode(Attempt.self, from: value) } catch { return nil }  // no attempt: none recorded
        }

        enum Keys: String, CodingKey {
            case status, message, endpoint
            case assemblyID = "assembly_id"
        }
    }
}

/// A list of elements that always decode; a value that is no list is an empty one.
struct AnyList<Element: Decodable>: Decodable {
    let items: [Element]

    init(from decoder: any Decoder) throws {
        do { items = try [Element](from: decoder) } catch { items = [] }  // no list: none
    }
}
