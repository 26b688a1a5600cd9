import Foundation

/// File-system calls for state that may not be there yet: a missing file or folder is an
/// answer (nothing), any other failure (no permission, a damaged disk) an error naming the path.
public enum FileSystem {
    /// The names in `folder` (without `.` and `..`), unsorted; empty when it does not exist.
    public static func names(in folder: String) throws(FileError) -> [String] {
        guard let directory = opendir(folder) else {
            if errno == ENOENT || errno == ENOTDIR { return [] }
            throw FileError(path: folder, operation: "list", code: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        errno = 0
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        if errno != 0 { throw FileError(path: folder, operation: "list", code: errno) }
        return names
    }

    /// The bytes of `path` (at most `limit`), or nil when it does not exist.
    public static func readIfPresent(_ path: String, limit: Int = 16 << 20) throws(FileError) -> Data? {
        do {
            return try FileReading.read(path, limit: limit)
        } catch let error as FileError where error.code == ENOENT {
            return nil
        } catch let error as FileError {
            throw error
        } catch {
            throw FileError(path: path, operation: "read", code: EIO)
        }
    }

    /// Removes `path`, a file or a whole folder, when it is there.
    public static func removeIfPresent(_ path: String) throws(FileError) {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch let error as CocoaError where error.code == .fileNoSuchFile {
            return
        } catch {
            let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError).map { Int32($0.code) } ?? EIO
            if code == ENOENT { return }
            throw FileError(path: path, operation: "remove", code: code)
        }
    }
}
