import Basics
import Crypto
import Foundation
import HTTPServer
import Wire

/// The engine's tus 1.0.0 server: creation (with upload and deferred length), termination,
/// expiration and checksums (in a header or a trailer). Upload ids, names and metadata are never used as paths.
struct TusEndpoint: Sendable {
    static let extensions = "creation,creation-with-upload,creation-defer-length,termination,expiration,checksum,checksum-trailer"
    static let checksumAlgorithms = "crc32,sha1,sha256,md5"

    /// Headers a tus request has at most once: never "the first one wins".
    static let singleHeaders = ["Tus-Resumable", "Upload-Offset", "Upload-Length", "Upload-Defer-Length", "Upload-Checksum", "Upload-Metadata", "Content-Type", "Trailer"]

    let store: UploadStore
    /// The path uploads are created at, such as `/resumable/files/`.
    let basePath: String
    let maxSize: Int64
    let lifetime: TimeInterval
    let space: DiskSpace
    /// When set, a creation whose metadata this refuses is answered 403 (an engine with an Auth
    /// Key takes uploads only for its own Assemblies, so no one can fill its disk without one).
    var admits: (@Sendable ([String: String]) -> Bool)? = nil
    /// Offer `checksum-trailer` to clients behind a proxy too (see `LocalEngine.Configuration`).
    var trailersBehindProxy = false
    /// The same-machine handoff, offered to clients that reach this server directly.
    var handoff: LocalHandoff.Offer?
    /// Whether the Assembly an upload's metadata names was canceled or failed: its uploads take
    /// no more bytes (and what they received is removed).
    var hasEnded: (@Sendable ([String: String]) -> Bool)? = nil
    /// The clock uploads' creation and expiry are read from.
    var clock: any MonotonicClock = SystemClock()
    /// Called when an upload is created.
    let onCreated: @Sendable (TusUploadRecord) -> Void
    /// Called once an upload has all its bytes.
    let onFinished: @Sendable (TusUploadRecord) -> Void

    func plan(_ head: RequestHead) -> RequestPlan {
        let id = String(head.path.dropFirst(basePath.count))
        if head.method == "OPTIONS" {
            // Trailers are offered only to a client that reaches this server directly: a proxy
            // that buffers chunked bodies (nginx by default) drops them on the way.
            let extensions = head.isDirect || trailersBehindProxy ? Self.extensions : Self.extensions.replacingOccurrences(of: ",checksum-trailer", with: "")
            var headers = [
                ("Tus-Resumable", TusProtocol.version), ("Tus-Version", TusProtocol.version), ("Tus-Extension", extensions),
                ("Tus-Checksum-Algorithm", Self.checksumAlgorithms), ("Tus-Max-Size", String(maxSize)),
            ]
            if let handoff, head.isDirect { headers.append((LocalHandoff.header, handoff.header)) }
            return .respond(ServerResponse(status: 204, headers: headers))
        }
        if let repeated = Self.singleHeaders.first(where: { head.headers.values($0).count > 1 }) {
            return .respond(answer(400, "\(repeated) is sent more than once; send it once"))
        }
        guard head.headers["Tus-Resumable"] == TusProtocol.version else {
            return .respond(answer(412, "Tus-Resumable must be \(TusProtocol.version)", extra: [("Tus-Version", TusProtocol.version)]))
        }
        switch (head.method, id.isEmpty) {
        case ("POST", true): return create(head)
        case ("HEAD", false): return .respond(status(id))
        case ("PATCH", false): return append(head, id: id)
        case ("DELETE", false): return .respond(terminate(id))
        default: return .respond(answer(405, "\(head.method) is not allowed here"))
        }
    }

    private func create(_ head: RequestHead) -> RequestPlan {
        let deferred = head.headers["Upload-Defer-Length"]
        var length: Int64?
        if let text = head.headers["Upload-Length"] {
            guard let value = TusProtocol.parseCount(text) else { return .respond(answer(400, "Upload-Length must be a non-negative integer")) }
            length = value
        } else if deferred != "1" {
            return .respond(answer(400, "send Upload-Length, or Upload-Defer-Length: 1"))
        }
        guard let metadata = TusProtocol.parseMetadata(head.headers["Upload-Metadata"]) else {
            return .respond(answer(400, "Upload-Metadata must be comma-separated 'key base64value' pairs"))
        }
        if hasEnded?(metadata) == true { return .respond(answer(410, Self.endedMessage)) }
        let record: TusUploadRecord
        switch newRecord(length: length, metadata: metadata) {
        case .success(let made): record = made
        case .failure(let refusal): return .respond(answer(refusal.status, refusal.message))
        }
        let hasBody = (Int(head.headers["Content-Length"] ?? "0") ?? 0) > 0
        if hasBody, head.headers["Content-Type"] != TusProtocol.offsetContentType {
            return .respond(answer(415, "a body in the creating POST needs Content-Type: \(TusProtocol.offsetContentType)"))
        }
        guard let checksum = bodyChecksum(head) else { return .respond(answer(400, Self.checksumFormat)) }
        if let refusal = trailerRefusal(head, checksum) { return refusal }
        do { try store.create(record, withBody: hasBody) } catch { return .respond(answer(500, "the upload could not be created")) }
        onCreated(record)
        let location = head.origin + basePath + record.id
        guard hasBody else {
            if record.isFinished { onFinished(record) }
            return .respond(ServerResponse(status: 201, headers: common(record) + [("Location", location)]))
        }
        if space.isShort(forBody: head.headers["Content-Length"]) {
            return .respond(answer(507, DiskSpace.fullMessage, extra: Array(common(record).dropFirst()) + [("Location", location)]))
        }
        guard let claim = store.claim(record.id) else { return .respond(answer(423, "another request is writing this upload")) }
        guard let sink = TusBodySink(store: store, record: record, claim: claim, checksum: checksum, onFinished: onFinished) else {
            return .respond(answer(500, "the upload could not be opened"))
        }
        return .stream(into: sink) {
            // A refused body leaves the upload created and empty: its Location goes along.
            let headers = common(sink.current) + [("Location", location)]
            return response(to: sink, success: ServerResponse(status: 201, headers: headers + verified(sink)), extra: Array(headers.dropFirst()))
        }
    }

    private func status(_ id: String) -> ServerResponse {
        // A client back after a dead connection asks first: the dead request is ended, and what it
        // received counts, so the offset answered is the true one (as tusd releases its locks).
        guard store.releaseAnywhere(id) else { return notLetGo() }
        guard let record = live(id) else { return gone(id) }
        if let ended = ended(record) { return ended }
        // An engine that stored the last bytes may have died before it told the Assembly: telling it again changes nothing otherwise.
        if store.sharing != nil, record.isFinished { onFinished(record) }
        var headers = common(record) + [("Cache-Control", "no-store")]
        if record.length == nil { headers.append(("Upload-Defer-Length", "1")) }
        if !record.metadata.isEmpty { headers.append(("Upload-Metadata", TusProtocol.encodeMetadata(record.metadata))) }
        return ServerResponse(status: 200, headers: headers)
    }

    private func append(_ head: RequestHead, id: String) -> RequestPlan {
        guard head.headers["Content-Type"] == TusProtocol.offsetContentType else {
            return .respond(answer(415, "PATCH needs Content-Type: \(TusProtocol.offsetContentType)"))
        }
        guard store.releaseAnywhere(id) else { return .respond(notLetGo()) }
        guard var record = live(id) else { return .respond(gone(id)) }
        if let ended = ended(record) { return .respond(ended) }
        guard let offset = head.headers["Upload-Offset"].flatMap(TusProtocol.parseCount) else {
            return .respond(answer(400, "PATCH needs Upload-Offset: a non-negative whole number of bytes"))
        }
        guard offset == record.offset else {
            return .respond(answer(409, "Upload-Offset \(offset) does not match the upload's offset \(record.offset)", extra: [("Upload-Offset", String(record.offset))]))
        }
        if record.length == nil, let text = head.headers["Upload-Length"] {
            guard let length = TusProtocol.parseCount(text), length >= record.offset, length <= maxSize else {
                return .respond(answer(400, "invalid Upload-Length"))
            }
            record.length = length
        }
        guard let checksum = bodyChecksum(head) else { return .respond(answer(400, Self.checksumFormat)) }
        if let refusal = trailerRefusal(head, checksum) { return refusal }
        if space.isShort(forBody: head.headers["Content-Length"]) {
            return .respond(answer(507, DiskSpace.fullMessage, extra: Array(common(record).dropFirst())))
        }
        guard let claim = store.claim(id) else { return .respond(answer(423, "another request is writing this upload")) }
        guard let sink = TusBodySink(store: store, record: record, claim: claim, checksum: checksum, onFinished: onFinished) else {
            return .respond(answer(500, "the upload could not be opened"))
        }
        return .stream(into: sink) {
            // Its Assembly canceled while the body came: the bytes are not kept, and no offset
            // that nothing holds is answered.
            if let ended = ended(sink.current) { return ended }
            return response(to: sink, success: ServerResponse(status: 204, headers: common(sink.current) + verified(sink)))
        }
    }

    /// Which checksum the body was verified with, said in the answer: behind a proxy that drops
    /// trailers (and their announcement) a body arrives without one, and its client learns so.
    private func verified(_ sink: TusBodySink) -> [(name: String, value: String)] {
        sink.verifiedChecksum.map { [(TusProtocol.checksumVerifiedField, $0.rawValue)] } ?? []
    }

    /// Why an upload is not made: the status and the message.
    struct Refusal: Error {
        var status: Int
        var message: String
    }

    /// The record of a new upload of `length` bytes (nil: deferred) with `metadata`, unless the
    /// size or the metadata is refused.
    private func newRecord(length: Int64?, metadata: [String: String]) -> Result<TusUploadRecord, Refusal> {
        if let length, length > maxSize { return .failure(Refusal(status: 413, message: "the upload is larger than Tus-Max-Size (\(maxSize) bytes)")) }
        if let admits, !admits(metadata) {
            return .failure(Refusal(status: 403, message: "this engine takes uploads only for its Assemblies: name one that is still uploading and expects more files in the 'assembly_url' metadata"))
        }
        let now = clock.date
        return .success(TusUploadRecord(
            id: RandomID.hex32(), length: length, offset: 0, metadata: metadata, created: now, expires: now.addingTimeInterval(lifetime)))
    }

    /// The same-machine handoff's creation-with-upload: an upload of `request.length` bytes, all
    /// of them from the open file `file`, made as a creating POST carrying them would make it.
    func create(_ request: LocalHandoff.Create, from file: Int32, stop: () -> Bool) -> LocalHandoff.Reply {
        let record: TusUploadRecord
        switch newRecord(length: request.length, metadata: request.metadata) {
        case .success(let made): record = made
        case .failure(let refusal): return .refused(status: refusal.status, message: refusal.message)
        }
        if let refusal = unreadable(file, through: request.length) { return refusal }
        do { try store.create(record, withBody: request.length > 0) } catch { return .refused(status: 500, message: "the upload could not be created") }
        onCreated(record)
        guard request.length > 0 else {
            onFinished(record)
            return .created(location: basePath + record.id, offset: 0)
        }
        switch fill(record, from: file, length: request.length, stop: stop) {
        case .stored(let offset): return .created(location: basePath + record.id, offset: offset)
        case let refusal:
            // Made, and perhaps linked to its Assembly: the client goes on with this upload (as
            // with a creating POST whose body was refused) from the bytes it holds.
            guard let held = store.record(record.id)?.offset else { return refusal }
            return .created(location: basePath + record.id, offset: held)
        }
    }

    /// Why the open file `file` cannot give bytes up to `end`, if it cannot.
    private func unreadable(_ file: Int32, through end: Int64) -> LocalHandoff.Reply? {
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .refused(status: 400, message: "the descriptor is not a regular file") }
        guard SystemCall.isOpenForReading(file) else { return .refused(status: 400, message: "the descriptor is not open for reading") }
        guard Int64(info.st_size) >= end else { return .refused(status: 400, message: "the file is shorter than the bytes asked for") }
        return nil
    }

    /// Copies `length` bytes of `file` from the upload's offset into the upload, as a body of
    /// those bytes without a checksum would be written; what arrived before a failure is kept, as
    /// of a body cut short, and the failure answered 500.
    private func fill(_ record: TusUploadRecord, from file: Int32, length: Int64, stop: () -> Bool) -> LocalHandoff.Reply {
        if space.isShort(forBody: String(length)) { return .refused(status: 507, message: DiskSpace.fullMessage) }
        guard let claim = store.claim(record.id) else { return .refused(status: 423, message: "another request is writing this upload") }
        guard let sink = TusBodySink(store: store, record: record, claim: claim, checksum: .none, onFinished: onFinished) else {
            return .refused(status: 500, message: "the upload could not be opened")
        }
        let copied = sink.copy(from: file, offset: record.offset, length: length, stop: stop)
        sink.close(complete: copied == length, trailers: HTTPHeaders())
        guard sink.outcome == .stored else { return .refused(status: 500, message: "the upload could not be stored") }
        guard copied == length else {
            return .refused(status: 500, message: "only \(copied) of \(length) bytes could be stored (the disk is full, or refused the file's size)")
        }
        if let ended = ended(sink.current) { return .refused(status: ended.status, message: Self.endedMessage) }
        return .stored(offset: sink.current.offset)
    }

    /// The same-machine handoff's PATCH: `request.length` bytes of the open file `file`, from
    /// `request.offset`, appended to the upload as a body of those bytes without a checksum would be.
    func append(_ request: LocalHandoff.Append, from file: Int32, stop: () -> Bool) -> LocalHandoff.Reply {
        func refuse(_ status: Int, _ message: String) -> LocalHandoff.Reply { .refused(status: status, message: message) }
        guard UploadStore.isValidID(request.id) else { return refuse(404, "no such upload") }
        guard store.releaseAnywhere(request.id) else { return refuse(423, "another request is writing this upload and did not let go; try again") }
        guard let record = live(request.id) else { return refuse(gone(request.id).status, "no such upload, or it has expired") }
        if let ended = ended(record) { return refuse(ended.status, Self.endedMessage) }
        guard request.offset == record.offset else { return refuse(409, "offset \(request.offset) does not match the upload's offset \(record.offset)") }
        guard let length = record.length else { return refuse(400, "an upload of deferred length takes its bytes over HTTP") }
        guard request.length <= length - record.offset else { return refuse(413, "the bytes go past Upload-Length") }
        if let refusal = unreadable(file, through: request.offset + request.length) { return refusal }
        return fill(record, from: file, length: request.length, stop: stop)
    }

    /// How the body's checksum arrives (`nil`: a malformed `Upload-Checksum` header).
    private func bodyChecksum(_ head: RequestHead) -> BodyChecksum? {
        if let header = head.headers["Upload-Checksum"] {
            return TusProtocol.parseChecksum(header).map { .header($0.0, $0.1) }
        }
        return TusProtocol.list(head.headers["Trailer"]).contains("upload-checksum") ? .trailer : BodyChecksum.none
    }

    /// Why an announced trailer cannot arrive: only a chunked HTTP/1.1 body carries one; a proxy
    /// that buffered the body and sent it with a length (nginx by default) has dropped it.
    /// Read to its end, then refused: a proxy still sending the body when the connection closed
    /// would answer its client 502 instead of this 400, and the client could not fall back.
    private func trailerRefusal(_ head: RequestHead, _ checksum: BodyChecksum) -> RequestPlan? {
        guard case .trailer = checksum, head.headers["Transfer-Encoding"]?.lowercased() != "chunked" else { return nil }
        let refusal = answer(400, "the announced Upload-Checksum trailer cannot arrive: the body is not chunked (a proxy on the way removed the trailer); send Upload-Checksum as a header")
        return .stream(into: DiscardedBody()) { refusal }
    }

    /// The answer to a body once it is in: `success`, or why it was not kept (with `extra` headers).
    private func response(to sink: TusBodySink, success: ServerResponse, extra: [(name: String, value: String)] = []) -> ServerResponse {
        switch sink.outcome {
        case .checksumMismatch: answer(460, "the checksum does not match the body", extra: extra)
        case .checksumMissing: answer(400, "the announced Upload-Checksum trailer is missing or malformed; " + Self.checksumFormat, extra: extra)
        case .unexpectedTrailer: answer(400, "an Upload-Checksum trailer comes once, only when 'Trailer: Upload-Checksum' announced it and no Upload-Checksum header was sent", extra: extra)
        case .failed: answer(500, "the upload could not be stored", extra: extra)
        case .pending, .stored: success
        }
    }

    static let checksumFormat = "Upload-Checksum must be an algorithm (\(checksumAlgorithms.replacingOccurrences(of: ",", with: ", "))), a space and the base64 digest, such as 'crc32 7YLNEQ=='"

    private func terminate(_ id: String) -> ServerResponse {
        guard live(id) != nil else { return gone(id) }
        guard let claim = store.claim(id) else { return answer(423, "another request is writing this upload") }
        withExtendedLifetime(claim) { _ = store.delete(id) }
        return ServerResponse(status: 204, headers: [("Tus-Resumable", TusProtocol.version)])
    }

    /// The record, unless unknown or expired (an expired unfinished upload is deleted: 410).
    private func live(_ id: String) -> TusUploadRecord? {
        guard let record = store.record(id) else { return nil }
        if !record.isFinished, record.expires < clock.date {
            store.delete(id)
            return nil
        }
        return record
    }

    /// For an upload whose Assembly was canceled or failed: the upload is removed and the request refused (410).
    private func ended(_ record: TusUploadRecord) -> ServerResponse? {
        guard hasEnded?(record.metadata) == true else { return nil }
        if let claim = store.claim(record.id) { withExtendedLifetime(claim) { _ = store.delete(record.id) } }
        return answer(410, Self.endedMessage)
    }

    static let endedMessage = "the Assembly this upload is for was canceled or failed; it takes no more bytes"

    /// The upload's writer did not let go: 423, or 503 when shared engines' database cannot be reached.
    private func notLetGo() -> ServerResponse {
        if store.sharing?.isReachable == false { return unreachable() }
        return answer(423, "another request is writing this upload and did not let go; try again")
    }

    private func unreachable() -> ServerResponse { answer(503, "the engine's database cannot be reached; try again shortly") }

    private func gone(_ id: String) -> ServerResponse {
        if store.sharing?.isReachable == false { return unreachable() }
        return UploadStore.isValidID(id) && FileManager.default.fileExists(atPath: store.dataPath(id))
            ? answer(410, "the upload has expired") : answer(404, "no such upload")
    }

    private func common(_ record: TusUploadRecord) -> [(name: String, value: String)] {
        var headers = [("Tus-Resumable", TusProtocol.version), ("Upload-Offset", String(record.offset))]
        if let length = record.length { headers.append(("Upload-Length", String(length))) }
        if !record.isFinished { headers.append(("Upload-Expires", TusProtocol.formatHTTPDate(record.expires))) }
        return headers
    }

    private func answer(_ status: Int, _ message: String, extra: [(name: String, value: String)] = []) -> ServerResponse {
        .text(status, message, headers: [("Tus-Resumable", TusProtocol.version)] + extra)
    }
}

/// A body that is read and dropped, for a refusal that must come after it.
final class DiscardedBody: BodySink {
    func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError) {}
    func close(complete: Bool, trailers: HTTPHeaders) {}
}
