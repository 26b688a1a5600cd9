import Basics
import Foundation

/// An Assembly's status as the API sends it: the engine encodes it, the runner decodes it.
/// Reading is lenient, as the official SDKs are: a field that is missing, null or of another
/// type than expected is absent (the service has sent `null` sizes and string byte counts), and
/// only a document that is not a JSON object fails to decode.
public struct AssemblyStatusDocument: Codable, Sendable, Equatable {
    /// `ASSEMBLY_UPLOADING`, `ASSEMBLY_EXECUTING`, `ASSEMBLY_COMPLETED`, ...
    public var ok: AssemblyStatusCode?
    /// The error code of a failed Assembly or refused request.
    public var error: APIErrorCode?
    /// The human message.
    public var message: String?
    /// Some refusals' words, where `message` is missing.
    public var reason: String?
    /// The HTTP status the answer came with, as the body repeats it.
    public var httpCode: Int?
    /// The Assembly's id.
    public var assemblyID: String?
    /// Its status URL over http.
    public var assemblyURL: String?
    /// Its status URL over https.
    public var assemblySSLURL: String?
    /// Where its files are uploaded over tus.
    public var tusURL: String?
    /// Bytes of uploads received so far.
    public var bytesReceived: Int64?
    /// Bytes of uploads announced.
    public var bytesExpected: Int64?
    /// The tus uploads the Assembly waits for.
    public var expectedTusUploads: Int?
    /// The tus uploads that began.
    public var startedTusUploads: Int?
    /// The tus uploads that ended.
    public var finishedTusUploads: Int?
    /// Each tus upload tied to it.
    public var tusUploads: [TusUpload] = []
    /// The files it received.
    public var uploads: [File] = []
    /// Result files per step.
    public var results: [String: [File]] = [:]
    /// Failures the steps' `ignore_errors` skipped.
    public var ignoredErrors: [IgnoredError] = []
    /// What tools warned of while they made results anyway.
    public var warnings: [Warning] = []
    /// The fields sent with it.
    public var fields: [String: JSONValue] = [:]
    /// The params exactly as received.
    public var params: String?
    /// When it began, `2026-12-01T19:41:53Z`.
    public var executionStart: String?
    /// Seconds it ran, once it ended.
    public var executionDuration: Double?
    /// The client's `Transloadit-Client` (or `User-Agent`) header.
    public var clientAgent: String?
    /// Where its end is announced.
    public var notifyURL: String?
    /// The Assembly it replays, for a replay.
    public var parentID: String?
    /// When the announcement began (`2026-12-01T19:41:53Z`).
    public var notifyStart: String?
    /// How it went: `successful`, `failed`, or `pending` while it is tried.
    public var notifyStatus: String?
    /// The HTTP status the notify URL answered last.
    public var notifyResponseCode: Int?
    /// The start of what the notify URL answered last.
    public var notifyResponseData: String?
    /// Seconds from the first attempt to the last.
    public var notifyDuration: Double?
    /// Why the last attempt failed.
    public var notifyError: String?
    /// `info.retryIn`: seconds to wait, sent with rate-limit errors.
    public var info: Info?

    /// A file in `uploads` or `results`.
    public struct File: Codable, Sendable, Equatable {
        public var id: String?
        public var name: String?
        public var basename: String?
        public var ext: String?
        /// Bytes; the service may send `null`.
        public var size: Int64?
        public var mime: String?
        /// The first part of `mime`.
        public var type: String?
        /// The form field or tus fieldname it came from.
        public var field: String?
        /// The upload (or, from the service, uploads) it derives from; the first names the source.
        public var originalIDs: [String] = []
        public var originalName: String?
        public var originalBasename: String?
        public var isTusFile: Bool?
        /// Facts such as width and height.
        public var meta: JSONValue?
        /// The MD5 of its bytes, as sent.
        public var md5hash: String?
        public var url: String?
        public var sslURL: String?
        /// A private bucket's export, signed.
        public var signedURL: String?
        public var signedSSLURL: String?

        /// Creates a file with only the fields given.
        public init(id: String? = nil, name: String? = nil, size: Int64? = nil, mime: String? = nil) {
            (self.id, self.name, self.size, self.mime) = (id, name, size, mime)
        }

        enum CodingKeys: String, CodingKey {
            case id, name, basename, ext, size, mime, type, field, meta, md5hash, url
            case originalIDs = "original_id", originalName = "original_name", originalBasename = "original_basename"
            case isTusFile = "is_tus_file", sslURL = "ssl_url", signedURL = "signed_url", signedSSLURL = "signed_ssl_url"
        }

        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            id = values.lenient(String.self, .id)
            name = values.lenient(String.self, .name)
            basename = values.lenient(String.self, .basename)
            ext = values.lenient(String.self, .ext)
            size = values.lenient(Int64.self, .size).flatMap { $0 >= 0 ? $0 : nil }
            mime = values.lenient(String.self, .mime)
            type = values.lenient(String.self, .type)
            field = values.lenient(String.self, .field)
            originalIDs = values.lenient(String.self, .originalIDs).map { [$0] } ?? values.lenient([String].self, .originalIDs) ?? []
            originalName = values.lenient(String.self, .originalName)
            originalBasename = values.lenient(String.self, .originalBasename)
            isTusFile = values.lenient(Bool.self, .isTusFile)
            meta = values.lenient(JSONValue.self, .meta)
            md5hash = values.lenient(String.self, .md5hash)
            url = values.lenient(String.self, .url)
            sslURL = values.lenient(String.self, .sslURL)
            signedURL = values.lenient(String.self, .signedURL)
            signedSSLURL = values.lenient(String.self, .signedSSLURL)
        }

        /// The engine writes one `original_id`; `size` and `meta` always, null when unknown.
        public func encode(to encoder: any Encoder) throws {
            var values = encoder.container(keyedBy: CodingKeys.self)
            try values.encodeIfPresent(id, forKey: .id)
            try values.encodeIfPresent(name, forKey: .name)
            try values.encodeIfPresent(basename, forKey: .basename)
            try values.encodeIfPresent(ext, forKey: .ext)
            try values.encode(size, forKey: .size)
            try values.encodeIfPresent(mime, forKey: .mime)
            try values.encodeIfPresent(type, forKey: .type)
            try values.encodeIfPresent(field, forKey: .field)
            if let first = originalIDs.first { try values.encode(originalIDs.count == 1 ? JSONValue.string(first) : .array(originalIDs.map(JSONValue.string)), forKey: .originalIDs) }
            try values.encodeIfPresent(originalName, forKey: .originalName)
            try values.encodeIfPresent(originalBasename, forKey: .originalBasename)
            try values.encodeIfPresent(isTusFile, forKey: .isTusFile)
            try values.encode(meta ?? .object([:]), forKey: .meta)
            try values.encodeIfPresent(md5hash, forKey: .md5hash)
            try values.encodeIfPresent(url, forKey: .url)
            try values.encodeIfPresent(sslURL, forKey: .sslURL)
            try values.encodeIfPresent(signedURL, forKey: .signedURL)
            try values.encodeIfPresent(signedSSLURL, forKey: .signedSSLURL)
        }
    }

    /// A tus upload tied to the Assembly.
    public struct TusUpload: Codable, Sendable, Equatable {
        public var filename: String?
        public var fieldname: String?
        /// Its length; nil while deferred.
        public var size: Int64?
        /// Bytes received.
        public var offset: Int64?
        public var finished: Bool?
        /// Where it is sent.
        public var uploadURL: String?

        /// Creates an upload entry.
        public init(filename: String?, fieldname: String?, size: Int64?, offset: Int64?, finished: Bool?, uploadURL: String?) {
            (self.filename, self.fieldname, self.size, self.offset, self.finished, self.uploadURL) = (filename, fieldname, size, offset, finished, uploadURL)
        }

        enum CodingKeys: String, CodingKey {
            case filename, fieldname, size, offset, finished
            case uploadURL = "upload_url"
        }

        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            filename = values.lenient(String.self, .filename)
            fieldname = values.lenient(String.self, .fieldname)
            size = values.lenient(Int64.self, .size)
            offset = values.lenient(Int64.self, .offset)
            finished = values.lenient(Bool.self, .finished)
            uploadURL = values.lenient(String.self, .uploadURL)
        }

        /// `size` always, null while deferred.
        public func encode(to encoder: any Encoder) throws {
            var values = encoder.container(keyedBy: CodingKeys.self)
            try values.encodeIfPresent(filename, forKey: .filename)
            try values.encodeIfPresent(fieldname, forKey: .fieldname)
            try values.encode(size, forKey: .size)
            try values.encodeIfPresent(offset, forKey: .offset)
            try values.encodeIfPresent(finished, forKey: .finished)
            try values.encodeIfPresent(uploadURL, forKey: .uploadURL)
        }
    }

    /// A failure a step's `ignore_errors` skipped.
    public struct IgnoredError: Codable, Sendable, Equatable {
        public var step: String?
        public var robot: String?
        /// The error code.
        public var error: APIErrorCode?
        public var message: String?
        /// The file it left out, when it names one.
        public var originalID: String?
        public var name: String?

        /// Creates an entry.
        public init(step: String?, robot: String?, error: APIErrorCode?, message: String?, originalID: String? = nil, name: String? = nil) {
            (self.step, self.robot, self.error, self.message, self.originalID, self.name) = (step, robot, error, message, originalID, name)
        }

        enum CodingKeys: String, CodingKey {
            case step, robot, error, message, name
            case originalID = "original_id"
        }

        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            (step, robot, error) = (values.lenient(String.self, .step), values.lenient(String.self, .robot), values.lenient(APIErrorCode.self, .error))
            (message, originalID, name) = (values.lenient(String.self, .message), values.lenient(String.self, .originalID), values.lenient(String.self, .name))
        }
    }

    /// What a tool warned of (the service's `{level, msg}`, with the step and file when known).
    public struct Warning: Codable, Sendable, Equatable {
        public var level: String?
        /// The words.
        public var msg: String?
        public var step: String?
        public var robot: String?
        /// The file it concerns.
        public var originalID: String?
        public var name: String?

        /// Creates a warning.
        public init(level: String?, msg: String?, step: String? = nil, robot: String? = nil, originalID: String? = nil, name: String? = nil) {
            (self.level, self.msg, self.step, self.robot, self.originalID, self.name) = (level, msg, step, robot, originalID, name)
        }

        enum CodingKeys: String, CodingKey {
            case level, msg, step, robot, name
            case originalID = "original_id"
        }

        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            (level, msg, step) = (values.lenient(String.self, .level), values.lenient(String.self, .msg), values.lenient(String.self, .step))
            (robot, originalID, name) = (values.lenient(String.self, .robot), values.lenient(String.self, .originalID), values.lenient(String.self, .name))
        }
    }

    /// `info` of a refusal.
    public struct Info: Codable, Sendable, Equatable {
        /// Seconds to wait before trying again.
        public var retryIn: Double?

        /// Creates the info.
        public init(retryIn: Double?) { self.retryIn = retryIn }

        public init(from decoder: any Decoder) throws {
            retryIn = try decoder.container(keyedBy: CodingKeys.self).lenient(Double.self, .retryIn)
        }
    }

    /// An empty document.
    public init() {}

    /// The status in one word, as results and tables show it: the error code, else `ok`.
    public var word: String? { error?.rawValue ?? ok?.rawValue }

    enum CodingKeys: String, CodingKey {
        case ok, error, message, reason, fields, params, warnings, uploads, results, info
        case httpCode = "http_code", assemblyID = "assembly_id", assemblyURL = "assembly_url", assemblySSLURL = "assembly_ssl_url"
        case tusURL = "tus_url", bytesReceived = "bytes_received", bytesExpected = "bytes_expected"
        case expectedTusUploads = "expected_tus_uploads", startedTusUploads = "started_tus_uploads", finishedTusUploads = "finished_tus_uploads"
        case tusUploads = "tus_uploads", ignoredErrors = "ignored_errors", executionStart = "execution_start"
        case executionDuration = "execution_duration", clientAgent = "client_agent", notifyURL = "notify_url"
        case parentID = "parent_id"
        case notifyStart = "notify_start", notifyStatus = "notify_status", notifyResponseCode = "notify_response_code"
        case notifyResponseData = "notify_response_data", notifyDuration = "notify_duration", notifyError = "notify_error"
    }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        ok = values.lenient(AssemblyStatusCode.self, .ok)
        error = values.lenient(APIErrorCode.self, .error)
        message = values.lenient(String.self, .message)
        reason = values.lenient(String.self, .reason)
        httpCode = values.lenient(Int.self, .httpCode)
        assemblyID = values.lenient(String.self, .assemblyID)
        assemblyURL = values.lenient(String.self, .assemblyURL)
        assemblySSLURL = values.lenient(String.self, .assemblySSLURL)
        tusURL = values.lenient(String.self, .tusURL)
        bytesReceived = values.lenient(Int64.self, .bytesReceived)
        bytesExpected = values.lenient(Int64.self, .bytesExpected)
        expectedTusUploads = values.lenient(Int.self, .expectedTusUploads)
        startedTusUploads = values.lenient(Int.self, .startedTusUploads)
        finishedTusUploads = values.lenient(Int.self, .finishedTusUploads)
        tusUploads = values.lenientList(TusUpload.self, .tusUploads)
        uploads = values.lenientList(File.self, .uploads)
        results = (values.lenient([String: Lenient<[Lenient<File>]>].self, .results) ?? [:]).compactMapValues { $0.value?.compactMap(\.value) }
        ignoredErrors = values.lenientList(IgnoredError.self, .ignoredErrors)
        warnings = values.lenientList(Warning.self, .warnings)
        fields = values.lenient([String: JSONValue].self, .fields) ?? [:]
        params = values.lenient(String.self, .params)
        executionStart = values.lenient(String.self, .executionStart)
        executionDuration = values.lenient(Double.self, .executionDuration)
        clientAgent = values.lenient(String.self, .clientAgent)
        notifyURL = values.lenient(String.self, .notifyURL)
        parentID = values.lenient(String.self, .parentID)
        notifyStart = values.lenient(String.self, .notifyStart)
        notifyStatus = values.lenient(String.self, .notifyStatus)
        notifyResponseCode = values.lenient(Int.self, .notifyResponseCode)
        notifyResponseData = values.lenient(String.self, .notifyResponseData)
        notifyDuration = values.lenient(Double.self, .notifyDuration)
        notifyError = values.lenient(String.self, .notifyError)
        info = values.lenient(Info.self, .info)
    }

    /// Reads a status document from its JSON; nil when it is not a JSON object.
    public static func decode(_ data: Data) -> AssemblyStatusDocument? {
        // Anything but an object fails the keyed decoding: no look at the bytes first.
        do { return try JSONDecoder().decode(AssemblyStatusDocument.self, from: data) } catch { return nil }
    }

    /// The document as JSON text, keys sorted, slashes as they are.
    public func jsonText() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do { return String(decoding: try encoder.encode(self), as: UTF8.self) } catch { return "{}" }
    }
}

/// An element of a list that is kept when it decodes and dropped when it does not.
struct Lenient<Value: Decodable>: Decodable {
    let value: Value?

    init(from decoder: any Decoder) throws {
        do { value = try Value(from: decoder) } catch { value = nil }
    }
}

extension KeyedDecodingContainer {
    /// The value at `key` when it has the type asked for; nil when it is missing, null or of
    /// another type: one odd field never costs the whole document.
    func lenient<Value: Decodable>(_ type: Value.Type, _ key: Key) -> Value? {
        do { return try decodeIfPresent(type, forKey: key) } catch { return nil }
    }

    /// The elements at `key` that decode as `type`; empty when it is no list.
    func lenientList<Value: Decodable>(_ type: Value.Type, _ key: Key) -> [Value] {
        (lenient([Lenient<Value>].self, key) ?? []).compactMap(\.value)
    }
}
