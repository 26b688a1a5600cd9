import Basics
import Crypto
import Engine
import Foundation

/// The previews `pipeline report` made, kept in the manifest's state (`previews/`) by what they
/// show: the SHA-256 of the file's content with the preview's settings. A report of an unchanged
/// run reads them back and runs neither libvips nor ffmpeg; only a new file gets a new preview.
/// A file no tool could read is remembered too (an empty `.none`), so it is not tried again. The
/// folder is opened without following links; after a report is written, `prune` removes every
/// preview it did not use, so the folder holds one report's previews (within the report's budget).
final class PreviewCache {
    private let folder: LinkFreeFolder?
    /// The manifest's folder, as a real path: the files' names in `digests` are relative to it.
    private let project: String
    private var digests: PreviewDigests
    /// The names in the folder this report used.
    private var used: Set<String> = [PreviewDigests.fileName]
    /// The previews made this time (a tool ran), for tests and messages.
    private(set) var made = 0

    /// The previews kept in `path`, a folder below `project` (made when missing); none are kept
    /// when it cannot be opened (a link on the way), and every preview is then made afresh.
    init(folder path: String, project: String) {
        folder = try? LinkFreeFolder.open(path, below: project)  // no cache: previews are made each time
        self.project = RealPath.of(project) ?? RealPath.normalized(project)
        digests = PreviewDigests(folder.flatMap { Self.read($0, PreviewDigests.fileName) })
    }

    /// The preview of the regular file at `path` (a real path), from the folder when one of its
    /// content was made before, else made now and kept; nil when none can be made.
    func jpeg(of path: String, mime: String, side: Int) -> Data? {
        guard let folder else { return PreviewImage.jpeg(of: path, mime: mime, side: side) }
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let hashed = try? FileIdentity.of(descriptor: descriptor, path: path),  // not a regular file: no preview
              let content = digests.sha256(of: descriptor, name: RealPath.relative(path, inside: project) ?? path) else { return nil }
        let key = SHA256.hex("pipeline preview\u{0}\(PreviewImage.settings)\u{0}\(side)\u{0}\(mime)\u{0}\(content)")
        if let kept = Self.read(folder, key + ".jpg") {
            used.insert(key + ".jpg")
            return kept
        }
        if folder.openFile(key + ".none").map({ close($0) }) != nil {
            used.insert(key + ".none")
            return nil
        }
        made += 1
        let outcome = PreviewImage.make(of: path, mime: mime, side: side)
        // Kept only when the file is still the one hashed: a preview is of the content it is keyed by.
        let unchanged = (try? FileIdentity.of(path)) == hashed  // gone or not a file now: not kept
        switch outcome {
        case .made(let data):
            if unchanged, Self.write(data, to: key + ".jpg", in: folder) { used.insert(key + ".jpg") }
            return data
        case .unreadable:
            if unchanged, Self.write(Data(), to: key + ".none", in: folder) { used.insert(key + ".none") }
            return nil
        case .unavailable:
            return nil
        }
    }

    /// Writes the digests of the files read this time and removes every preview this report did
    /// not use (nor one being written by another report, for an hour): the folder keeps what
    /// the current results name. A folder that cannot be written only costs previews next time.
    func prune() {
        guard let folder else { return }
        if let data = digests.encoded { _ = Self.write(data, to: PreviewDigests.fileName, in: folder) }
        let hourAgo = Int64(Date().timeIntervalSince1970 - 3600) * 1_000_000_000
        for name in Self.names(in: folder) where !used.contains(name) {
            var info = stat()
            guard fstatat(folder.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if name.hasSuffix(".part"), FileTime.nanoseconds(info.st_mtim) > hourAgo { continue }
            folder.remove(name)
        }
    }

    /// The bytes of the regular file `name` in `folder` (a link is not followed); nil when there is none.
    private static func read(_ folder: LinkFreeFolder, _ name: String, limit: Int = 16 << 20) -> Data? {
        guard let descriptor = folder.openFile(name) else { return nil }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in SystemCall.uninterrupted { Foundation.read(descriptor, bytes.baseAddress, bytes.count) } }
            guard count >= 0 else { return nil }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
            guard data.count <= limit else { return nil }
        }
    }

    /// Puts `data` in `folder` as `name`, whole or not at all; whether it is there.
    private static func write(_ data: Data, to name: String, in folder: LinkFreeFolder) -> Bool {
        guard let (descriptor, temporary) = try? folder.createTemporary(for: name) else { return false }  // a full or read-only disk: not kept
        defer { close(descriptor) }
        let failed = data.withUnsafeBytes { SystemCall.writeAll($0, to: descriptor) } != nil
        guard !failed, (try? folder.rename(temporary, to: name)) != nil else {  // not renamed: not kept, made again next time
            folder.remove(temporary)
            return false
        }
        return true
    }

    /// The names in the open `folder`, read through its own descriptor (never its path again).
    private static func names(in folder: LinkFreeFolder) -> [String] {
        let copy = dup(folder.descriptor)
        guard copy >= 0, let directory = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
