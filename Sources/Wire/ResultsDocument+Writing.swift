import Basics

// A results file as the runner writes it: each type encodes the members it holds, those the
// schema requires always (`null` when it holds none), the others only when present; the writer
// serializes them with sorted keys, as every JSON file of the project.

extension ResultsDocument {
    /// The file's format version.
    public static let version = 1
}

extension ResultsDocument.Header: Encodable {
    /// The header of results of `pipeline`.
    public init(pipeline: String, manifest: String?, shard: String?, endpoint: String?) {
        (self.pipeline, self.manifest, self.shard, self.endpoint) = (pipeline, manifest, shard, endpoint)
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: Keys.self)
        try values.encode(pipeline, forKey: .pipeline)
        try values.encodeIfPresent(manifest, forKey: .manifest)
        try values.encodeIfPresent(shard, forKey: .shard)
        try values.encodeIfPresent(endpoint, forKey: .endpoint)
        try values.encode(ResultsDocument.version, forKey: .version)
    }
}

extension ResultsDocument.Assembly: Encodable {
    /// An entry as written.
    public init(
        job: String, planID: String, status: String, assemblyID: String?, assemblyURL: String?, message: String?, files: [ResultsDocument.File],
        results: [String: [ResultsDocument.Result]], leftOut: [ResultsDocument.LeftOut], warnings: [ResultsDocument.Warning], attempt: ResultsDocument.Attempt?
    ) {
        (self.job, self.planID, self.status, self.assemblyID, self.assemblyURL, self.message) = (job, planID, status, assemblyID, assemblyURL, message)
        (self.files, self.results, self.leftOut, self.warnings, self.attempt) = (files, results, leftOut, warnings, attempt)
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: Keys.self)
        try values.encode(job, forKey: .job)
        try values.encode(planID, forKey: .planID)
        try values.encode(status, forKey: .status)
        try values.encodeIfPresent(assemblyID, forKey: .assemblyID)
        try values.encodeIfPresent(assemblyURL, forKey: .assemblyURL)
        try values.encodeIfPresent(message, forKey: .message)
        try values.encode(files, forKey: .files)
        try values.encode(results, forKey: .results)
        if !leftOut.isEmpty { try values.encode(leftOut, forKey: .leftOut) }
        if !warnings.isEmpty { try values.encode(warnings, forKey: .warnings) }
        try values.encodeIfPresent(attempt, forKey: .attempt)
    }
}

extension ResultsDocument.File: Encodable {
    /// A source file as written.
    public init(path: String, size: Int, sha256: String, steps: [String: String]?, smartCDNURL: String?) {
        (self.path, self.size, self.sha256, self.steps, self.smartCDNURL) = (path, size, sha256, steps, smartCDNURL)
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: Keys.self)
        try values.encode(path, forKey: .path)
        try values.encode(size, forKey: .size)
        try values.encode(sha256, forKey: .sha256)
        try values.encodeIfPresent(steps, forKey: .steps)
        try values.encodeIfPresent(smartCDNURL, forKey: .smartCDNURL)
    }
}

extension ResultsDocument.Result: Encodable {
    /// A result file as written.
    public init(
        source: String?, name: String?, url: String?, size: Int?, md5hash: String?, mime: String?, meta: JSONValue?, localPath: String?, expires: String?
    ) {
        (self.source, self.name, self.url, self.size, self.md5hash) = (source, name, url, size, md5hash)
        (self.mime, self.meta, self.localPath, self.expires) = (mime, meta, localPath, expires)
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: Keys.self)
        try values.encodeOrNull(source, forKey: .source)
        try values.encodeOrNull(name, forKey: .name)
        try values.encodeOrNull(size, forKey: .size)
        try values.encode(meta ?? .null, forKey: .meta)
        try values.encodeIfPresent(url, forKey: .url)
        try values.encodeIfPresent(md5hash, forKey: .md5hash)
        try values.encodeIfPresent(mime, forKey: .mime)
        try values.encodeIfPresent(localPath, forKey: .localPath)
        try values.encodeIfPresent(expires, forKey: .expires)
    }
}

extension ResultsDocument.LeftOut: Encodable {
    /// A file left out, as written.
    public init(source: String?, step: String?, error: String?, message: String?) {
        (self.source, self.step, self.error, self.message) = (source, step, error, message)
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: Keys.self)
        try values.encodeOrNull(source, forKey: .source)
        try values.encodeOrNull(step, forKey: .step)
        try values.encodeOrNull(error, forKey: .error)
        try values.encodeOrNull(message, forKey: .message)
    }
}

extension ResultsDocument.Warning: Encodable {
    /// A warning as written.
    public init(source: String?, step: String?, message: String?) {
        (self.source, self.step, self.message) = (source, step, message)
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: Keys.self)
        try values.encodeOrNull(source, forKey: .source)
        try values.encodeOrNull(step, forKey: .step)
        try values.encodeOrNull(message, forKey: .message)
    }
}

extension ResultsDocument.Attempt: Encodable {
    /// An attempt as written.
    public init(status: String, message: String?, assemblyID: String?, endpoint: String?) {
        (self.status, self.message, self.assemblyID, self.endpoint) = (status, message, assemblyID, endpoint)
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: Keys.self)
        try values.encode(status, forKey: .status)
        try values.encodeIfPresent(message, forKey: .message)
        try values.encodeIfPresent(assemblyID, forKey: .assemblyID)
        try values.encodeIfPresent(endpoint, forKey: .endpoint)
    }
}

extension KeyedEncodingContainer {
    /// A member the schema requires: its value, or `null` when there is none.
    fileprivate mutating func encodeOrNull<Value: Encodable>(_ value: Value?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
