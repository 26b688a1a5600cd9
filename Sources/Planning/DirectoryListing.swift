import Basics
import Foundation

/// One entry of a folder, with symbolic links already resolved to what they point at.
struct DirectoryEntry: Sendable {
    /// `unreadableName`: the name is not UTF-8, so it cannot be written in a plan or sent as a
    /// file name without changing it; `name` then shows its bytes, escaped.
    enum Kind: Sendable { case file, directory, other, brokenLink, unreadableName }
    var name: String
    var kind: Kind
    /// Whether the entry is a symbolic link (`kind` is what it leads to).
    var isLink = false
}

/// Why a folder could not be listed.
struct ListingError: Error {
    var code: Int32
}

/// Lists folders with `opendir`/`readdir`, using `d_type` to avoid a `stat` per entry.
enum DirectoryListing {
    static func list(_ path: String) throws(ListingError) -> [DirectoryEntry] {
        guard let directory = opendir(path) else { throw ListingError(code: errno) }
        defer { closedir(directory) }
        var entries: [DirectoryEntry] = []
        while let entry = readdir(directory) {
            // The name is read where it lies; only one that is not UTF-8 is copied, to be shown.
            let (name, bytes) = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: UInt8.self, capacity: 256) { start in
                    let bytes = UnsafeBufferPointer(start: start, count: strlen(UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)))
                    let name = String(validating: bytes, as: UTF8.self)
                    return (name, name == nil ? Array(bytes) : [])
                }
            }
            guard let name else {
                let shown = bytes.map { $0 < 0x80 && $0 >= 0x20 ? String(UnicodeScalar($0)) : String(format: "\\x%02x", $0) }.joined()
                entries.append(DirectoryEntry(name: shown, kind: .unreadableName))
                continue
            }
            if name == "." || name == ".." { continue }
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): entries.append(DirectoryEntry(name: name, kind: .file))
            case Int32(DT_DIR): entries.append(DirectoryEntry(name: name, kind: .directory))
            case Int32(DT_LNK): entries.append(DirectoryEntry(name: name, kind: resolve(path + "/" + name), isLink: true))
            case Int32(DT_UNKNOWN): entries.append(DirectoryEntry(name: name, kind: resolve(path + "/" + name), isLink: isLink(path + "/" + name)))
            default: entries.append(DirectoryEntry(name: name, kind: .other))
            }
        }
        // In the byte order of the paths they lead to (a folder's name as if followed by '/'), so a
        // walk lists files nearly in plan order and sorting them afterwards costs little.
        return sortedByPath(entries)
    }

    /// Sorted by their names' bytes, a folder's name followed by '/'. The first eight bytes of each
    /// key, as one big-endian number, decide most comparisons without touching the strings.
    private static func sortedByPath(_ entries: [DirectoryEntry]) -> [DirectoryEntry] {
        let keys = entries.map { $0.kind == .directory ? $0.name + "/" : $0.name }
        let prefixes = keys.map { key in
            var prefix: UInt64 = 0, shift: UInt64 = 56
            for byte in key.utf8.prefix(8) {
                prefix |= UInt64(byte) << shift
                shift &-= 8
            }
            return prefix
        }
        let order = entries.indices.sorted { left, right in
            prefixes[left] != prefixes[right] ? prefixes[left] < prefixes[right] : ByteOrder.precedes(keys[left], keys[right])
        }
        return order.map { entries[$0] }
    }

    /// What a path is once symbolic links are followed.
    static func resolve(_ path: String) -> DirectoryEntry.Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .brokenLink }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// Whether `path` itself is a symbolic link.
    static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// The device and inode of a folder, to recognise a folder seen before through a link.
    static func identity(_ path: String) -> FolderIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}

/// A folder's device and inode numbers.
struct FolderIdentity: Hashable {
    var device: UInt64
    var inode: UInt64
}
