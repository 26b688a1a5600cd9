internal import CArchive
import Basics
import Foundation

/// Writes a zip, tar or gzipped tar archive with libarchive, one file at a time, streamed from disk.
final class ArchiveWriter {
    enum Format: Sendable { case zip, tar, tarGzip }

    private let archive: OpaquePointer?
    private let name: String
    private var closed = false

    /// Creates the archive at `path` (`name` is what errors call it); `level` 0-9 sets compression.
    init(path: String, name: String, format: Format, level: Int) throws(RobotError) {
        archive = archive_write_new()
        self.name = name
        switch format {
        case .zip:
            archive_write_set_format_zip(archive)
            archive_write_set_options(archive, "zip:compression-level=\(level)")
        case .tar:
            archive_write_set_format_pax_restricted(archive)
        case .tarGzip:
            archive_write_set_format_pax_restricted(archive)
            archive_write_add_filter_gzip(archive)
            archive_write_set_options(archive, "gzip:compression-level=\(max(1, level))")
        }
        guard archive_write_open_filename(archive, path) == ARCHIVE_OK else { throw failure("cannot create") }
    }

    deinit {
        if !closed { archive_write_close(archive) }
        archive_write_free(archive)
    }

    /// Adds the file at `source` under `entry`, a relative path inside the archive.
    func add(_ source: String, as entry: String) throws(RobotError) {
        guard let input = FileHandle(forReadingAtPath: source) else { throw failure("cannot read '\(entry)' for") }
        defer { try? input.close() }  // read only: a failed close loses nothing
        var info = stat()
        guard fstat(input.fileDescriptor, &info) == 0 else { throw failure("cannot read '\(entry)' for") }
        let item = archive_entry_new()
        defer { archive_entry_free(item) }
        archive_entry_set_pathname_utf8(item, entry)
        archive_entry_set_size(item, la_int64_t(info.st_size))
        archive_entry_set_filetype(item, 0o100000)  // AE_IFREG, a macro Swift does not import
        archive_entry_set_perm(item, 0o644)
        archive_entry_set_mtime(item, info.st_mtim.tv_sec, 0)
        guard archive_write_header(archive, item) == ARCHIVE_OK else { throw failure("cannot add '\(entry)' to") }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in SystemCall.uninterrupted { read(input.fileDescriptor, bytes.baseAddress, bytes.count) } }
            guard count >= 0 else { throw failure("cannot read '\(entry)' for") }
            if count == 0 { break }
            let written = buffer.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, count) }
            guard written == count else { throw failure("cannot add '\(entry)' to") }
        }
    }

    /// Finishes the archive.
    func close() throws(RobotError) {
        closed = true
        guard archive_write_close(archive) == ARCHIVE_OK else { throw failure("cannot finish") }
    }

    private func failure(_ what: String) -> RobotError {
        let reason = archive_error_string(archive).map { String(cString: $0) } ?? "libarchive failed"
        return RobotError(code: .fileCompressError, message: "\(what) the archive '\(name)': \(reason)")
    }
}
