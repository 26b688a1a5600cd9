import Crypto
import Foundation
import HTTPClient
import Wire

/// Uploads one file with the tus protocol: `UploadMachine` decides each step from the server's
/// answers (resume, retry, a new upload when the server forgot one); this type makes the
/// requests, computes checksums, reports progress and keeps the resume record.
struct FileUploader: Sendable {
    let client: TusClient
    let capabilities: TusCapabilities
    let options: UploadOptions
    let store: ResumeStore?
    /// The local engine's same-machine handoff, when it offers one (see `handsOver`).
    var handoff: HandoffClient?

    func upload(
        index: Int, path: String, metadata: [String: String], known: (sha256: String, modified: Int64)? = nil,
        progress: @escaping @Sendable (UploadProgress) -> Void
    ) async throws -> UploadResult {
        let file = try LocalFile.identify(path, known: known)
        if let maxSize = capabilities.maxSize, file.size > maxSize {
            throw TusError(.rejected, request: "POST \(client.endpoint)", detail: "'\(path)' is \(file.size) bytes; the server takes at most \(maxSize)")
        }
        let key = ResumeStore.key(endpoint: client.endpoint, file: file)
        var checksum = try checksumAlgorithm()
        // The plan's digest is the checksum of a whole-file request, if the file is the version it hashed.
        let planDigest = known.flatMap { known in
            known.modified == file.modified ? Hex.decode(known.sha256).map { "sha256 " + Data($0).base64EncodedString() } : nil
        }
        // Chosen by cost: CRC-32 is nearly free; hashing every byte with SHA-256 (or SHA-1, MD5)
        // again costs both ends more than a check against damage in transit is worth (TCP and TLS
        // check that too), so by default such a server gets only the digest the plan already has,
        // on a whole-file request, and otherwise none, as plain tus clients send.
        let knownOnly = options.checksum == .automatic && checksum != nil && checksum != .crc32
        if knownOnly { checksum = planDigest != nil && capabilities.checksumAlgorithms.contains("sha256") ? .sha256 : nil }
        // CRC-32 costs less than reading the bytes again: where the server takes it as a trailer it
        // is computed from the bytes as they are sent; otherwise each chunk's is computed ahead.
        // A proxy that refused a trailer for this endpoint (it buffers chunked bodies) gets header checksums.
        let offersTrailer = checksum == .crc32 && capabilities.extensions.contains("checksum-trailer")
        var ahead: ChecksumAhead?
        let knownHeader = checksum == .sha256 ? planDigest : nil
        // A stored upload URL (state, which may come from a cache or a commit) is resumed only on
        // the endpoint's own origin and below its path: the file's bytes never go where a state
        // file points.
        let resuming = (store?.load(key)?.uploadURL).flatMap { Self.isBelow($0, endpoint: client.endpoint) ? $0 : nil }
        var machine = UploadMachine(size: file.size, resuming: resuming, retry: options.retryPolicy)
        var expirySaved = ContinuousClock.now
        var lastExpiry: Date?
        progress(UploadProgress(index: index, confirmed: 0, inFlight: 0, total: file.size))
        var action = machine.start
        var rateLimited = false
        while true {
            try Task.checkCancellation()
            // A rate limit met by any request of the run holds this one too.
            if case .wait = action {} else { try await options.hold?.waitOutPause() }
            let event: UploadMachine.Event
            switch action {
            case .fail(let error):
                throw error
            case .finish(let url):
                // Bytes read while the file was being rewritten are a mix of two versions: never a success.
                if let change = file.change() {
                    store?.remove(key)
                    throw TusError(.rejected, request: "PATCH \(url)", detail: "'\(path)' changed while it was uploaded (\(change)); upload it again")
                }
                if !options.remembersFinished { store?.remove(key) }
                return UploadResult(index: index, path: path, url: url, size: file.size, resumedFrom: machine.resumedFrom)
            case .wait(let delay):
                if rateLimited { await options.hold?.pause(for: delay) }
                try await options.clock.sleep(for: delay)
                event = .waited
            case .askOffset(let url):
                event = try await Self.outcome {
                    let status = try await client.status(of: url)
                    if let length = status.length, length != file.size {
                        throw TusError(.gone, request: "HEAD \(url)", detail: "the server holds \(length) bytes for a \(file.size)-byte file")
                    }
                    guard status.offset <= file.size else {
                        throw TusError(.rejected, request: "HEAD \(url)", detail: "the server claims \(status.offset) bytes of a \(file.size)-byte file")
                    }
                    return .offsetKnown(status.offset)
                }
            case .create where handsOver && file.size <= options.creationWithUploadLimit:
                // Made with the whole file handed over: one message instead of a request. A larger
                // file is created over HTTP first, so its resume record is kept while it is copied.
                event = try await Self.outcome {
                    guard let created = try await handoff?.create(at: client.endpoint, path: file.path, length: file.size, metadata: metadata) else {
                        let made = try await client.create(length: file.size, metadata: metadata)  // over HTTP from here on
                        lastExpiry = made.status.expires
                        return .created(url: made.url, offset: made.status.offset)
                    }
                    return .created(url: created.url, offset: created.offset)
                }
            case .create:
                let known = machine.trustsKnownDigest ? knownHeader : nil
                event = try await Self.outcome {
                    let created = try await create(file: file, metadata: metadata, checksum: checksum, known: known)
                    lastExpiry = created.status.expires
                    return .created(url: created.url, offset: created.status.offset)
                }
            case .send(let url, let offset) where handsOver:
                // The rest of the file as an open descriptor: the engine copies it in the kernel.
                progress(UploadProgress(index: index, confirmed: offset, inFlight: 0, total: file.size))
                event = try await Self.outcome {
                    guard let stored = try await handoff?.append(to: url, path: file.path, offset: offset, length: file.size - offset) else {
                        return .sendRefused  // the socket is gone: the same bytes go over HTTP
                    }
                    return .sent(offset: stored)
                }
            case .send(let url, let offset):
                let chunkSize = options.bodyLimits.limit(for: client.endpoint)
                    ?? options.chunkSize ?? (checksum == nil || knownOnly ? Int64.max : UploadOptions.checksumChunkSize)
                let length = min(chunkSize, file.size - offset)
                let whole = offset == 0 && length == file.size
                let trailer = offersTrailer && !options.bodyLimits.refusesTrailers(for: client.endpoint) ? checksum : nil
                if trailer == nil, ahead == nil, !knownOnly, let checksum { ahead = ChecksumAhead(algorithm: checksum, path: file.path) }
                let header = try await whole && machine.trustsKnownDigest && knownHeader != nil ? knownHeader : ahead?.value(offset: offset, length: length)
                if let ahead, offset + length < file.size {
                    ahead.prepare(offset: offset + length, length: min(chunkSize, file.size - offset - length))
                }
                progress(UploadProgress(index: index, confirmed: offset, inFlight: 0, total: file.size))
                event = try await Self.outcome {
                    guard let status = try await append(to: url, file: file, offset: offset, length: length, checksum: header, trailer: trailer, progress: { sent in
                        progress(UploadProgress(index: index, confirmed: offset, inFlight: sent, total: file.size))
                    }) else { return .sendRefused }
                    lastExpiry = status.expires
                    // A trailer sent and no checksum verified: a proxy dropped it with its
                    // announcement. This body is stored unverified; the next ones carry headers.
                    if trailer != nil, status.verifiedChecksum == nil { options.bodyLimits.refuseTrailers(for: client.endpoint) }
                    return .sent(offset: status.offset)
                }
            }
            if case .failed(let error) = event { rateLimited = error.kind == .rateLimited }
            let (next, record) = machine.handle(event)
            // Without the record a later run cannot resume, and starts the file again: no failure of this one.
            func remember(_ url: String, expires: Date?) {
                try? store?.save(.init(uploadURL: url, endpoint: client.endpoint, path: file.path, size: file.size, expires: expires), for: key)  // a cache
            }
            switch record {
            case .save(let url):
                // A file that went whole in the creating POST has nothing left to resume, nor has
                // a small one handed over on this machine (made again if cut short).
                if case .finish = next, !options.remembersFinished { break }
                if handsOver, file.size <= options.creationWithUploadLimit, !options.remembersFinished { break }
                remember(url, expires: lastExpiry)
            case .forget:
                store?.remove(key)
            case nil:
                // The server moves the expiry with every PATCH; a flushed write per chunk would cost
                // more than the chunk, so the record follows it every few seconds (it keeps a minute's margin).
                if case .sent = event, let url = machine.url, let expires = lastExpiry, ContinuousClock.now - expirySaved >= .seconds(5) {
                    remember(url, expires: expires)
                    expirySaved = .now
                }
            }
            // What the server holds now (a creating request may have carried the whole file).
            switch event {
            case .sent, .created, .offsetKnown: progress(UploadProgress(index: index, confirmed: machine.offset, inFlight: 0, total: file.size))
            case .sendRefused, .failed, .waited: break
            }
            action = next
        }
    }

    /// Whether bytes go by the handoff: offered, still working, and no checksum asked for by name
    /// (a copy on one machine needs none; an explicit `--checksum` is honoured over HTTP).
    private var handsOver: Bool {
        guard let handoff, handoff.isUsable else { return false }
        if case .algorithm = options.checksum { return false }
        return true
    }

    /// The event a request's outcome is: what `request` returns, or its tus failure.
    private static func outcome(_ request: () async throws -> UploadMachine.Event) async throws -> UploadMachine.Event {
        do { return try await request() } catch let error as TusError { return .failed(error) }
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

    /// Whether `url` is an upload of `endpoint`: its origin, below its path, no `.` or `..` on the way.
    static func isBelow(_ url: String, endpoint: String) -> Bool {
        guard let origin = URLOrigin.of(url), origin == URLOrigin.of(endpoint),
              let segments = URLOrigin.plainPathSegments(url), let base = URLOrigin.plainPathSegments(endpoint) else { return false }
        let prefix = base.last == "" ? Array(base.dropLast()) : base
        return segments.count > prefix.count && Array(segments.prefix(prefix.count)) == prefix && segments.last?.isEmpty == false
    }

    /// POST, with the whole file when it is small enough (and its checksum, as a PATCH would carry
    /// it: a small file costs one request with integrity on, not two).
    private func create(
        file: LocalFile, metadata: [String: String], checksum: ChecksumAlgorithm?, known: String?
    ) async throws -> (url: String, status: TusClient.Status) {
        let inline = !handsOver && capabilities.supportsCreationWithUpload && file.size > 0 && file.size <= options.creationWithUploadLimit
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
        case .automatic, .firstOffered: return capabilities.checksumAlgorithm
        case .algorithm(let algorithm):
            guard capabilities.extensions.contains("checksum"), capabilities.checksumAlgorithms.contains(algorithm.rawValue) else {
                throw TusError(.rejected, request: "OPTIONS \(client.endpoint)", detail: "the server does not accept \(algorithm.rawValue) checksums")
            }
            return algorithm
        }
    }
}
