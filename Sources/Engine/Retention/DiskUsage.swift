import Foundation

/// What a folder holds, read entry by entry without keeping the names: the bytes its files take
/// (each file once however many links it has; links are not followed), and how many entries end
/// in a suffix. What the engine reports of its data folder.
enum DiskUsage {
    /// The bytes below `path`.
    static func of(_ path: String) -> Int64 {
        var seen = Set<UInt64>()
        return walk(path, seen: &seen)
    }

    /// How many entries of the folder `path` end in `suffix`.
    static func count(in path: String, endingIn suffix: String) -> Int {
        guard let folder = opendir(path) else { return 0 }
        defer { closedir(folder) }
        var count = 0
        while let entry = readdir(folder) {
            if name(of: entry).hasSuffix(suffix) { count += 1 }
        }
        return count
    }

    private static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    private static func walk(_ path: String, seen: inout Set<UInt64>) -> Int64 {
        guard let folder = opendir(path) else { return 0 }
        defer { closedir(folder) }
        var total: Int64 = 0
        while let entry = readdir(folder) {
            let name = name(of: entry)
            guard name != ".", name != ".." else { continue }
            var info = stat()
            let child = path + "/" + name
            guard lstat(child, &info) == 0 else { continue }  // gone since the listing
            switch info.st_mode & S_IFMT {
            case S_IFDIR: total += walk(child, seen: &seen)
            // Only a file with more than one name can be met twice.
            case S_IFREG where info.st_nlink == 1 || seen.insert(UInt64(info.st_ino)).inserted: total += Int64(info.st_size)
            default: break
            }
        }
        return total
    }
}
