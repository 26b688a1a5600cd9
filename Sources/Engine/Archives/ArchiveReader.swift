import Basics
internal import CArchive
import Foundation

/// Extracts the regular files of an archive (zip, tar, 7z and the compressions libarchive reads)
/// with limits against archive bombs: how many entries, how many bytes in all, and how many
/// times the archive's own size they may expand to. Entries are written to files the engine
/// names; links, devices and paths that are absolute or climb out with `..` are skipped.
struct ArchiveReader {
    /// The limits one archive is held to.
    struct Limits: Sendable {
        var entries = 10_000
        var bytes: Int64 = 4 << 30
        var ratio: Int64 = 200
    }

    /// A file taken out of the archive.
    struct Extracted {
        var relativePath: String
        var slot: ResultSlot
    }

    let limits: Limits

    /// Extracts `file` into slots under `folder`; `password` opens encrypted entries.
    func extract(_ file: AssemblyFile, into folder: String, password: String?, isCanceled: () -> Bool) throws(RobotError) -> [Extracted] {
        let archive = archive_read_new()
        defer { archive_read_free(archive) }
        archive_read_support_filter_all(archive)
        for support in [archive_read_support_format_zip, archive_read_support_format_tar, archive_read_support_format_gnutar,
                        archive_read_support_format_7zip, archive_read_support_format_cpio] {
            _ = support(archive)
        }
        if let password { archive_read_add_passphrase(archive, password) }
        guard archive_read_open_filename(archive, file.path, 1 << 16) == ARCHIVE_OK else {
            throw failure(archive, "'\(file.name)' is not an archive the local engine reads", file)
        }
        let budget = min(limits.bytes, max(file.size, 1) * limits.ratio)
        var extracted: [Extracted] = []
        var total: Int64 = 0
        var entry: OpaquePointer?
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { break }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN else { throw failure(archive, "cannot read '\(file.name)'", file) }
            guard !isCanceled() else { throw RobotError.canceled }
            // Regular files only (AE_IFREG): links could point anywhere, devices are not files.
            guard archive_entry_filetype(entry) == 0o100000, let path = Self.safePath(entry) else { continue }
            guard extracted.count < limits.entries else {
                throw RobotError(code: .fileDecompressError, message: "'\(file.name)' holds more than \(limits.entries) files")
            }
            let slot = try ResultSlot(name: String(path.split(separator: "/").last ?? "file"), in: folder)
            guard let output = Self.create(slot.path) else {
                throw RobotError(code: .internalCommandError, message: "cannot store '\(path)' from '\(file.name)'")
            }
            // Closed when the entry is whole, and checked (a full disk may say so only then); on
            // a failure before, the handle closes itself when it goes.
            while true {
                let count = buffer.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
                guard count >= 0 else { throw failure(archive, "cannot read '\(path)' in '\(file.name)'", file) }
                if count == 0 { break }
                total += Int64(count)
                guard total <= budget else {
                    throw RobotError(
                        code: .fileDecompressError,
                        message: "'\(file.name)' expands to more than \(budget) bytes (the local engine allows \(limits.ratio) times an archive's size, at most \(limits.bytes) bytes)")
                }
                do {
                    try buffer.withUnsafeBytes { try output.write(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                } catch {
                    throw RobotError(code: .internalCommandError, message: "cannot store '\(path)' from '\(file.name)'")
                }
            }
            do { try output.close() } catch {
                throw RobotError(code: .internalCommandError, message: "cannot store '\(path)' from '\(file.name)'")
            }
            extracted.append(Extracted(relativePath: path, slot: slot))
        }
        return extracted
    }

    /// The entry's path with `./` and empty parts dropped; nil when absolute or climbing out.
    static func safePath(_ entry: OpaquePointer?) -> String? {
        guard let raw = archive_entry_pathname_utf8(entry) ?? archive_entry_pathname(entry) else { return nil }
        let text = String(cString: raw)
        guard !text.hasPrefix("/") else { return nil }
        let parts = text.split(separator: "/").filter { $0 != "." && !$0.isEmpty }
        guard !parts.isEmpty, !parts.contains(".."), !text.contains("\\") else { return nil }
        return parts.joined(separator: "/")
    }

    private static func create(_ path: String) -> FileHandle? {
        FileManager.default.createFile(atPath: path, contents: nil) ? FileHandle(forWritingAtPath: path) : nil
    }

    private func failure(_ archive: OpaquePointer?, _ what: String, _ file: AssemblyFile) -> RobotError {
        // libarchive may name the file it opened: say the upload's name, never the engine's folders.
        let reason = (archive_error_string(archive).map { String(cString: $0) } ?? "libarchive failed").replacingOccurrences(of: file.path, with: file.name)
        return RobotError(code: .fileDecompressError, message: "\(what): \(reason)")
    }
}
