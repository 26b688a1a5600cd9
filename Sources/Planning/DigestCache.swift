import Basics
import Foundation

/// A digest an earlier plan made, with the identity of the file version it was made from.
struct RememberedDigest: Sendable {
    var identity: FileIdentity
    var sha256: String
}

/// File digests remembered by file identity (size, mtime, ctime, inode, device), the way git's
/// index does, so planning an unchanged tree again only stats it. An entry is trusted only when
/// its file's times are older than the cache's own writing by more than `slack`: a file changed
/// in the same clock tick as it was hashed (same size, same second) is hashed again.
public struct DigestCache: Sendable {
    private let file: String
    private let slack: Int64
    private let written: Int64
    /// When this plan began (the cache is opened before any file is read): the time the entries
    /// it writes were made at the earliest, so a file changed just after it was hashed stays racy.
    private let opened: Date
    /// Entries in the byte order of their paths, as plans list files.
    private let paths: [String]
    private let entries: [RememberedDigest]

    /// The cache kept in `file` (missing or unreadable: empty); with `rehashing`, nothing in it is
    /// trusted, every file is hashed and the cache written anew.
    public init(file: String, slack: Duration = .seconds(2), rehashing: Bool = false) {
        self.file = file
        self.slack = slack.components.seconds * 1_000_000_000 + slack.components.attoseconds / 1_000_000_000
        opened = Date()
        let parsed = rehashing ? nil : Self.readRegularFile(file).flatMap(Self.parse)
        written = parsed?.written ?? 0
        paths = parsed?.paths ?? []
        entries = parsed?.entries ?? []
    }

    /// For each of `keys` (in byte order), the remembered digest that may be trusted if the file's
    /// identity still matches: a merge of two sorted lists, no lookup table.
    func candidates(for keys: [String]) -> [RememberedDigest?] {
        var result = [RememberedDigest?](repeating: nil, count: keys.count)
        var cursor = 0
        for (index, key) in keys.enumerated() {
            while cursor < paths.count, ByteOrder.precedes(paths[cursor], key) { cursor += 1 }
            guard cursor < paths.count, ByteOrder.same(paths[cursor], key) else { continue }
            let entry = entries[cursor]
            if max(entry.identity.modified, entry.identity.changed) < written - slack { result[index] = entry }
        }
        return result
    }

    /// Writes the digests of this plan's files, unless nothing changed; the other files' entries
    /// are forgotten, or kept when `keepingOthers` (a shard's plan sees only its share).
    func save(keys: [String], digests: [FileDigest?], keepingOthers: Bool = false) {
        var keys = keys, digests = digests
        if keepingOthers {
            (keys, digests) = mergingOthers(keys: keys, digests: digests)
        }
        let unchanged = keys.elementsEqual(paths, by: ByteOrder.same)
            && zip(digests, entries).allSatisfy { $0?.identity == $1.identity && $0?.sha256 == $1.sha256 }
        guard !unchanged || hasRacyEntries, Self.mayWrite(file) else { return }
        let stamp = Int64(opened.timeIntervalSince1970 * 1_000_000_000)
        try? AtomicFile.write(to: file) { emit in
            var output = Array("\(Self.magic) \(stamp)\n".utf8)
            for (key, digest) in zip(keys, digests) {
                guard let digest, let identity = digest.identity else { continue }
                output += "\(identity.size) \(identity.modified) \(identity.changed) \(identity.inode) \(identity.device) \(digest.sha256) ".utf8
                output += key.utf8
                output.append(0)
                if output.count > 1 << 20 {
                    emit(Data(output))
                    output.removeAll(keepingCapacity: true)
                }
            }
            emit(Data(output))
        }
    }

    /// `keys` and their digests merged, in byte order, with the remembered entries of other paths.
    private func mergingOthers(keys: [String], digests: [FileDigest?]) -> ([String], [FileDigest?]) {
        var mergedKeys: [String] = [], mergedDigests: [FileDigest?] = []
        var old = 0
        for (key, digest) in zip(keys, digests) {
            while old < paths.count, ByteOrder.precedes(paths[old], key) {
                mergedKeys.append(paths[old])
                mergedDigests.append(FileDigest(size: entries[old].identity.size, sha256: entries[old].sha256, identity: entries[old].identity))
                old += 1
            }
            if old < paths.count, ByteOrder.same(paths[old], key) { old += 1 }
            mergedKeys.append(key)
            mergedDigests.append(digest)
        }
        for index in old..<paths.count {
            mergedKeys.append(paths[index])
            mergedDigests.append(FileDigest(size: entries[index].identity.size, sha256: entries[index].sha256, identity: entries[index].identity))
        }
        return (mergedKeys, mergedDigests)
    }

    /// Whether some entry was too new to trust when the cache was written: writing it again
    /// later lets the next plan trust it.
    private var hasRacyEntries: Bool {
        entries.contains { max($0.identity.modified, $0.identity.changed) >= written - slack }
    }

    private static let magic = "pipeline-digests 1"

    /// The file's bytes if it is a regular file (not a link, a device or a pipe, which a checkout
    /// could plant to make planning block, or read or write elsewhere).
    private static func readRegularFile(_ path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size < 1 << 30 else { return nil }
        return try? FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).readToEnd()
    }

    /// Whether the cache may be written at `path`: inside a real folder (created if missing), and
    /// over nothing but a regular file. Anything else leaves the cache unwritten.
    private static func mayWrite(_ path: String) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        var info = stat()
        if lstat(folder, &info) != 0 {
            guard mkdir(folder, 0o755) == 0, lstat(folder, &info) == 0 else { return false }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return false }
        return lstat(path, &info) != 0 ? errno == ENOENT : info.st_mode & S_IFMT == S_IFREG
    }

    /// The header's time and the records: five numbers and a digest separated by spaces, then the
    /// path, ended by a NUL (which no path contains). Anything malformed discards the whole file.
    private static func parse(_ data: Data) -> (written: Int64, paths: [String], entries: [RememberedDigest])? {
        data.withUnsafeBytes { parse(bytes: $0.bindMemory(to: UInt8.self)) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> (written: Int64, paths: [String], entries: [RememberedDigest])? {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let header = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
        guard header.count == 3, header[0] + " " + header[1] == magic, let written = Int64(header[2]) else { return nil }
        var paths: [String] = []
        var entries: [RememberedDigest] = []
        var position = newline + 1
        func number() -> Int64? {
            var value: Int64 = 0
            let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            let start = position
            while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 {
                let (product, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                value = product + Int64(bytes[position] - 48)
                position += 1
            }
            guard position > start, position < bytes.count, bytes[position] == UInt8(ascii: " ") else { return nil }
            position += 1
            return negative ? -value : value
        }
        while position < bytes.count {
            guard let size = number(), let modified = number(), let changed = number(), let inode = number(), let device = number(),
                  position + 65 < bytes.count, bytes[position + 64] == UInt8(ascii: " ") else { return nil }
            let digest = UnsafeBufferPointer(rebasing: bytes[position..<position + 64])
            guard digest.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
                  let inode = UInt64(exactly: inode), let device = UInt64(exactly: device), size >= 0 else { return nil }
            let sha256 = String(decoding: digest, as: UTF8.self)
            position += 65
            guard let end = bytes[position...].firstIndex(of: 0) else { return nil }
            let path = String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<end]), as: UTF8.self)
            guard paths.last.map({ ByteOrder.precedes($0, path) }) ?? true else { return nil }
            position = end + 1
            paths.append(path)
            entries.append(RememberedDigest(
                identity: FileIdentity(size: size, modified: modified, changed: changed, inode: inode, device: device),
                sha256: sha256))
        }
        return (written, paths, entries)
    }
}
