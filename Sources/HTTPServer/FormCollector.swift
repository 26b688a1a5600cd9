import CMicroHTTPD
import Foundation

/// Parses multipart and urlencoded forms with libmicrohttpd's post processor, streaming file
/// parts to disk so large uploads never sit in memory.
final class FormCollector: @unchecked Sendable {
    private var processor: OpaquePointer?
    private let directory: String
    private let limit: Int64
    private var received: Int64 = 0
    private var data = FormData()
    private var fieldBuffers: [String: Data] = [:]
    private var fieldOrder: [String] = []
    private var openFile: (key: String, filename: String, contentType: String?, descriptor: Int32, path: String, size: Int64)?
    private var problem: ServerResponse?

    init(connection: OpaquePointer?, directory: String, limit: Int64) {
        self.directory = directory
        self.limit = limit
        processor = MHD_create_post_processor(connection, 64 * 1024, formIterator, Unmanaged.passUnretained(self).toOpaque())
    }

    var isValid: Bool { processor != nil }

    func feed(_ bytes: UnsafeRawBufferPointer) -> ServerResponse? {
        received += Int64(bytes.count)
        if received > limit { return .text(413, "the request body is larger than \(limit) bytes") }
        guard let processor, let base = bytes.baseAddress else { return nil }
        let result = MHD_post_process(processor, base.assumingMemoryBound(to: CChar.self), bytes.count)
        if let problem { return problem }
        return result == MHD_Result.YES ? nil : .text(400, "the form body is malformed")
    }

    func finish() -> FormData? {
        closeFile()
        if let processor { MHD_destroy_post_processor(processor) }
        processor = nil
        data.fields = fieldOrder.map { ($0, String(decoding: fieldBuffers[$0] ?? Data(), as: UTF8.self)) }
        return problem == nil ? data : nil
    }

    func discard() {
        closeFile()
        if let processor { MHD_destroy_post_processor(processor) }
        processor = nil
        for file in data.files { unlink(file.path) }
    }

    fileprivate func take(key: String, filename: String?, contentType: String?, bytes: UnsafeRawBufferPointer) -> Bool {
        guard let filename else {
            if fieldBuffers[key] == nil { fieldOrder.append(key) }
            fieldBuffers[key, default: Data()].append(contentsOf: bytes)
            return true
        }
        if openFile?.key != key || openFile?.filename != filename {
            closeFile()
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/part-\(data.files.count)-\(UUID().uuidString.lowercased())"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                problem = .text(500, "cannot store the uploaded file")
                return false
            }
            openFile = (key, filename, contentType, descriptor, path, 0)
        }
        guard var file = openFile else { return false }
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let written = write(file.descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                problem = .text(500, "cannot store the uploaded file")
                return false
            }
            offset += written
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

private let formIterator: MHD_PostDataIterator = { context, _, key, filename, contentType, _, data, _, size in
    guard let context else { return .NO }
    let collector = Unmanaged<FormCollector>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data.map { UnsafeRawPointer($0) }, count: size)
    let ok = collector.take(
        key: key.map { String(cString: $0) } ?? "", filename: filename.map { String(cString: $0) },
        contentType: contentType.map { String(cString: $0) }, bytes: bytes)
    return ok ? MHD_Result.YES : MHD_Result.NO
}
