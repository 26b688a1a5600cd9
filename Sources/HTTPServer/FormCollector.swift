internal import CMicroHTTPD
import Basics
import Foundation

/// Parses multipart and urlencoded forms with libmicrohttpd's post processor, streaming file
/// parts to disk so large uploads never sit in memory. Fields are capped (`fieldLimit` bytes in
/// all); the handler's `admit` sees the fields before the first file byte is stored, so a refused
/// request never writes to disk. Every temporary file goes when the request ends.
final class FormCollector: @unchecked Sendable {  // owned by its request's RequestContext, on its connection thread
    /// The most bytes of non-file fields (params, signature, fields) a form may carry.
    static let fieldLimit = 1 << 20

    private var processor: OpaquePointer?
    private let directory: String
    private let limit: Int64
    private let admit: @Sendable (FormData) -> ServerResponse?
    private var admitted = false
    private var received: Int64 = 0
    private var fieldBytes = 0
    private var data = FormData()
    private var fieldBuffers: [String: Data] = [:]
    private var fieldOrder: [String] = []
    private var openFile: (key: String, filename: String, contentType: String?, descriptor: Int32, path: String, size: Int64)?
    private var problem: ServerResponse?

    init(connection: OpaquePointer?, directory: String, limit: Int64, admit: @escaping @Sendable (FormData) -> ServerResponse?) {
        self.directory = directory
        self.limit = limit
        self.admit = admit
        processor = MHD_create_post_processor(connection, 64 * 1024, formIterator, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { cleanUp() }

    var isValid: Bool { processor != nil }

    func feed(_ bytes: UnsafeRawBufferPointer) -> ServerResponse? {
        received += Int64(bytes.count)
        if received > limit { return .text(413, "the request body is larger than \(limit) bytes") }
        guard let processor, let base = bytes.baseAddress else { return nil }
        let result = MHD_post_process(processor, base.assumingMemoryBound(to: CChar.self), bytes.count)
        if let problem { return problem }
        return result == MHD_Result.YES ? nil : .text(400, "the form body is malformed")
    }

    /// The whole form, or the refusal of the handler's `admit` (asked here when no file came).
    func finish() -> Result<FormData, SinkError> {
        closeFile()
        if let processor { MHD_destroy_post_processor(processor) }
        processor = nil
        if let problem { return .failure(SinkError(problem)) }
        collectFields()
        if !admitted, let refusal = admit(data) { return .failure(SinkError(refusal)) }
        admitted = true
        return .success(data)
    }

    /// Closes and removes every temporary file; safe to call more than once.
    func cleanUp() {
        closeFile()
        if let processor { MHD_destroy_post_processor(processor) }
        processor = nil
        for file in data.files { unlink(file.path) }
        data.files = []
        rmdir(directory)
    }

    private func collectFields() {
        data.fields = fieldOrder.map { ($0, String(decoding: fieldBuffers[$0] ?? Data(), as: UTF8.self)) }
    }

    /// Takes the piece of a part's value at `offset`: offset 0 starts a new part, so two parts of
    /// the same name (two files `file` both called `a.png`) stay two, and a repeated field keeps
    /// its last value.
    fileprivate func take(key: String, filename: String?, contentType: String?, offset: UInt64, bytes: UnsafeRawBufferPointer) -> Bool {
        guard let filename else {
            fieldBytes += bytes.count + (fieldBuffers[key] == nil ? key.utf8.count : 0)
            guard fieldBytes <= Self.fieldLimit else {
                problem = .text(413, "the form's fields are larger than \(Self.fieldLimit / 1024) KiB in all; send files as file parts")
                return false
            }
            if fieldBuffers[key] == nil { fieldOrder.append(key) }
            if offset == 0 { fieldBuffers[key] = Data() }
            fieldBuffers[key, default: Data()].append(contentsOf: bytes)
            return true
        }
        if !admitted {
            collectFields()
            if let refusal = admit(data) {
                problem = refusal
                return false
            }
            admitted = true
        }
        if offset == 0 || openFile?.key != key || openFile?.filename != filename {
            closeFile()
            mkdir(directory, 0o700)
            let path = directory + "/part-\(data.files.count)-\(UUID().uuidString.lowercased())"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                problem = .text(500, "cannot store the uploaded file")
                return false
            }
            openFile = (key, filename, contentType, descriptor, path, 0)
        }
        guard var file = openFile else { return false }
        if let failure = SystemCall.writeAll(bytes, to: file.descriptor) {
            problem = .text(failure == ENOSPC ? 507 : 500, "cannot store the uploaded file")
            return false
        }
        file.size += Int64(bytes.count)
        openFile = file
        return true
    }

    private func closeFile() {
        guard let file = openFile else { return }
        close(file.descriptor)
        data.files.append(.init(field: file.key, filename: file.filename, contentType: file.contentType, path: file.path, size: file.size))
        openFile = nil
    }
}

private let formIterator: MHD_PostDataIterator = { context, _, key, filename, contentType, _, data, offset, size in
    guard let context else { return .NO }
    let collector = Unmanaged<FormCollector>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data.map { UnsafeRawPointer($0) }, count: size)
    let ok = collector.take(
        key: key.map { String(cString: $0) } ?? "", filename: filename.map { String(cString: $0) },
        contentType: contentType.map { String(cString: $0) }, offset: offset, bytes: bytes)
    return ok ? MHD_Result.YES : MHD_Result.NO
}
