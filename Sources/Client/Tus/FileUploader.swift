import Crypto
import Foundation
import HTTPClient
import Wire

/// Uploads one file with the tus protocol, resuming where the server stopped: after a transport
/// error or a 409 it asks the server for its offset and continues from there; a stored URL the
/// server no longer knows (404/410) means a new upload. Retries wait `retryDelays`, and the
/// attempt counter resets whenever the server's offset has moved forward.
struct FileUploader: Sendable {
    let client: TusClient
    let capabilities: TusCapabilities
    let options: UploadOptions
    let store: ResumeStore?

    func upload(
        index: Int, path: String, metadata: [String: String], known: (sha256: String, modified: Int64)? = nil,
        progress: @escaping @Sendable (UploadProgress) -> Void
    ) async throws -> UploadResult {
        let file = try LocalFile.identify(path)
        if let maxSize = capabilities.maxSize, file.size > maxSize {
            throw TusError(.rejected, request: "POST \(client.endpoint)", detail: "'\(path)' is \(file.size) bytes; the server takes at most \(maxSize)")
        }
        let key = ResumeStore.key(endpoint: client.endpoint, file: file)
        let checksum = try checksumAlgorithm()
        // CRC-32 costs less than reading the bytes again: where the server takes it as a trailer it
        // is computed from the bytes as they are sent; otherwise each chunk's is computed ahead.
        // A proxy that refused a trailer for this endpoint (it buffers chunked bodies) gets header checksums.
        let offersTrailer = checksum == .crc32 && capabilities.extensions.contains("checksum-trailer")
        var ahead: ChecksumAhead?
        // The plan's digest is the checksum of a whole-file request, if the file is the version it hashed.
        var knownHeader = known.flatMap { known in
            checksum == .sha256 && known.modified == file.modified ? Hex.decode(known.sha256).map { "sha256 " + Data($0).base64EncodedString() } : nil
        }
        var url = store?.load(key)?.uploadURL
        var offset: Int64 = 0
        var resumedFrom: Int64 = 0
        var attempt = 0
        var offsetAtLastFailure: Int64 = -1
        var needsStatus = url != nil
        // An upload this call created that the server then forgets is retried with backoff like
        // any failure, so a server that loses every upload cannot make an endless create loop.
        var createdHere = false
        var expirySaved = ContinuousClock.now
        progress(UploadProgress(index: index, confirmed: 0, inFlight: 0, total: file.size))

        while true {
            do {
                try Task.checkCancellation()
                if let current = url, needsStatus {
                    let status = try await client.status(of: current)
                    if let length = status.length, length != file.size {
                        throw TusError(.gone, request: "HEAD \(current)", detail: "the server holds \(length) bytes for a \(file.size)-byte file")
                    }
                    guard status.offset <= file.size else {
                        throw TusError(.rejected, request: "HEAD \(current)", detail: "the server claims \(status.offset) bytes of a \(file.size)-byte file")
                    }
                    offset = status.offset
                    if resumedFrom == 0 { resumedFrom = offset }
                    needsStatus = false
                } else if url == nil {
                    let created = try await create(file: file, metadata: metadata, checksum: checksum, known: knownHeader)
                    url = created.url
                    createdHere = true
                    offset = created.status.offset
                    // A file that went whole in the creating POST has nothing left to resume.
                    if offset < file.size || options.remembersFinished {
                        try store?.save(.init(uploadURL: created.url, endpoint: client.endpoint, path: file.path, size: file.size,
                                              expires: created.status.expires), for: key)
                    }
                }
                guard let current = url else { continue }
                progress(UploadProgress(index: index, confirmed: offset, inFlight: 0, total: file.size))
                while offset < file.size {
                    let chunkSize = options.bodyLimits.limit(for: client.endpoint)
                        ?? options.chunkSize ?? (checksum == nil ? Int64.max : UploadOptions.checksumChunkSize)
                    let length = min(chunkSize, file.size - offset)
                    let whole = offset == 0 && length == file.size
                    let trailer = offersTrailer && !options.bodyLimits.refusesTrailers(for: client.endpoint) ? checksum : nil
                    if trailer == nil, ahead == nil, let checksum { ahead = ChecksumAhead(algorithm: checksum, path: file.path) }
                    let header = try await whole && knownHeader != nil ? knownHeader : ahead?.value(offset: offset, length: length)
                    if let ahead, offset + length < file.size {
                        ahead.prepare(offset: offset + length, length: min(chunkSize, file.size - offset - length))
                    }
                    let start = offset
                    guard let status = try await append(to: current, file: file, offset: start, length: length, checksum: header, trailer: trailer, progress: { sent in
                        progress(UploadProgress(index: index, confirmed: start, inFlight: sent, total: file.size))
                    }) else {
                        progress(UploadProgress(index: index, confirmed: start, inFlight: 0, total: file.size))
                        continue
                    }
                    offset = status.offset
                    progress(UploadProgress(index: index, confirmed: offset, inFlight: 0, total: file.size))
                    // The server moves the expiry with every PATCH; a flushed write per chunk would cost
                    // more than the chunk, so the record follows it every few seconds (it keeps a minute's margin).
                    if let expires = status.expires, ContinuousClock.now - expirySaved >= .seconds(5) {
                        try? store?.save(.init(uploadURL: current, endpoint: client.endpoint, path: file.path, size: file.size,
                                               expires: expires), for: key)
                        expirySaved = .now
                    }
                }
                // Bytes read while the file was being rewritten are a mix of two versions: never a success.
                if let change = file.change() {
                    store?.remove(key)
                    throw TusError(.rejected, request: "PATCH \(current)", detail: "'\(path)' changed while it was uploaded (\(change)); upload it again")
                }
                if !options.remembersFinished { store?.remove(key) }
                return UploadResult(index: index, path: path, url: current, size: file.size, resumedFrom: resumedFrom)
            } catch let error as TusError {
                // A creating request refused with a Location (a body whose checksum failed): the
                // upload exists, empty; it is used, not abandoned for a new one per retry.
                if url == nil, let location = error.location, error.kind != .gone {
                    url = location
                    createdHere = true
                    needsStatus = true
                    try? store?.save(.init(uploadURL: location, endpoint: client.endpoint, path: file.path, size: file.size, expires: nil), for: key)
                }
                if error.kind == .gone {
                    // The server forgot the upload (or never had it): start a new one; not an
                    // attempt, unless this call created it (then the server keeps losing uploads).
                    store?.remove(key)
                    guard url != nil else { throw error }
                    url = nil
                    offset = 0
                    needsStatus = false
                    if !createdHere { continue }
                }
                guard error.isRetryable || error.kind == .gone else { throw error }
                if offset > offsetAtLastFailure { attempt = 0 }
                offsetAtLastFailure = offset
                guard attempt < options.retryDelays.count else { throw error }
                try await Task.sleep(for: options.retryDelays[attempt])
                attempt += 1
                needsStatus = url != nil && error.kind != .checksumMismatch
                // A mismatch with the plan's digest: the file changed within the same clock tick; hash it.
                if error.kind == .checksumMismatch { knownHeader = nil }
                createdHere = false
            }
        }
    }

    /// One PATCH; `nil` when a proxy refused its size (413) and a smaller one should be sent, or
    /// refused its checksum trailer (400) and the checksum should go in a header.
    private func append(
        to url: String, file: LocalFile, offset: Int64, length: Int64, checksum: String?, trailer: ChecksumAlgorithm?,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws(TusError) -> TusClient.Status? {
        do {
            return try await client.append(
                to: url, offset: offset, body: .file(path: file.path, offset: offset, length: length), checksum: checksum,
                checksumTrailer: trailer, progress: progress)
        } catch where error.status == 413 {
            guard options.bodyLimits.shrink(for: client.endpoint, from: length) else { throw error.withDetail(Self.bodyLimitHint) }
            return nil
        } catch where error.status == 400 && trailer != nil {
            options.bodyLimits.refuseTrailers(for: client.endpoint)
            return nil
        }
    }

    /// POST, with the whole file when it is small enough (and its checksum, as a PATCH would carry
    /// it: a small file costs one request with integrity on, not two).
    private func create(
        file: LocalFile, metadata: [String: String], checksum: ChecksumAlgorithm?, known: String?
    ) async throws -> (url: String, status: TusClient.Status) {
        let inline = capabilities.supportsCreationWithUpload && file.size > 0 && file.size <= options.creationWithUploadLimit
            && (options.chunkSize ?? Int64.max) >= file.size && options.bodyLimits.limit(for: client.endpoint).map({ $0 >= file.size }) ?? true
        guard inline else { return try await client.create(length: file.size, metadata: metadata) }
        var header = known
        if header == nil, let checksum { header = try checksum.headerValue(path: file.path, offset: 0, length: file.size) }
        return try await createWithUpload(file: file, metadata: metadata, checksum: header)
    }

    private func createWithUpload(
        file: LocalFile, metadata: [String: String], checksum: String?
    ) async throws(TusError) -> (url: String, status: TusClient.Status) {
        do {
            return try await client.create(
                length: file.size, metadata: metadata, body: .file(path: file.path, offset: 0, length: file.size), checksum: checksum)
        } catch where error.status == 413 {
            // A proxy limits request bodies: create empty, then PATCH in sizes it lets through.
            _ = options.bodyLimits.shrink(for: client.endpoint, from: file.size)
            return try await client.create(length: file.size, metadata: metadata)
        }
    }

    static let bodyLimitHint = "a proxy between here and the server refuses even \(BodySizeMemory.smallest / 1024) KiB request bodies; raise its limit (nginx: client_max_body_size)"

    private func checksumAlgorithm() throws(TusError) -> ChecksumAlgorithm? {
        switch options.checksum {
        case .off: return nil
        case .automatic: return capabilities.checksumAlgorithm
        case .algorithm(let algorithm):
            guard capabilities.extensions.contains("checksum"), capabilities.checksumAlgorithms.contains(algorithm.rawValue) else {
                throw TusError(.rejected, request: "OPTIONS \(client.endpoint)", detail: "the server does not accept \(algorithm.rawValue) checksums")
            }
            return algorithm
        }
    }
}
