import Basics
import Foundation

/// One entry of a folder, with symbolic links already resolved to what they point at.
struct DirectoryEntry: Sendable {
    enum Kind: Sendable { case file, directory, other, brokenLink }
    var name: String
    var kind: Kind
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
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            let kind: DirectoryEntry.Kind
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): kind = .file
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_LNK), Int32(DT_UNKNOWN): kind = resolve(path + "/" + name)
            default: kind = .other
            }
            entries.append(DirectoryEntry(name: name, kind: kind))
        }
        // In the byte order of the paths they lead to (a folder's name as if followed by '/'), so a
        // walk lists files nearly in plan order and sorting them afterwards costs little.
        return entries.sorted { ByteOrder.precedes($0.kind == .directory ? $0.name + "/" : $0.name, $1.kind == .directory ? $1.name + "/" : $1.name) }
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
