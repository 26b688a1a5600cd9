import Foundation

/// Where paths really lead once every symbolic link is resolved, and whether that stays inside a folder.
public enum RealPath {
    /// The resolved absolute path of `path`, or nil when it does not exist.
    public static func of(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The path of the file an open descriptor refers to (as the kernel knows it, links resolved).
    public static func of(descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether the resolved `path` is `folder` (resolved) or inside it, byte for byte: a folder
    /// whose name differs only by Unicode normalization is another folder.
    public static func isInside(_ path: String, _ folder: String) -> Bool {
        folder == "/" || ByteOrder.same(path, folder) || path.utf8.starts(with: (folder + "/").utf8)
    }

    /// `path` absolute, without `.` and `..` components or repeated slashes (no links resolved).
    public static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var kept: [Substring] = []
        for part in absolute.split(separator: "/") where part != "." {
            if part == ".." { if !kept.isEmpty { kept.removeLast() } } else { kept.append(part) }
        }
        return "/" + kept.joined(separator: "/")
    }

    /// `path` as seen from `folder`, both made absolute and normalized ("../x/pipeline.yml").
    public static func relative(_ path: String, from folder: String) -> String {
        let target = normalized(path).split(separator: "/"), base = normalized(folder).split(separator: "/")
        var common = 0
        while common < min(target.count, base.count), target[common].utf8.elementsEqual(base[common].utf8) { common += 1 }
        let parts = Array(repeating: "..", count: base.count - common) + target[common...].map(String.init)
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// `path` relative to `folder` when it lies inside it (`.` for the folder itself); nil otherwise.
    public static func relative(_ path: String, inside folder: String) -> String? {
        let absolute = normalized(path), base = normalized(folder)
        return isInside(absolute, base) ? relative(absolute, from: base) : nil
    }

    /// The kernel's own trees, which are never files to read as input: `/proc`, `/sys`, and `/dev`
    /// but for `/dev/shm`, a memory file system where projects and their files may well live.
    public static func isSystemTree(_ path: String) -> Bool {
        isInside(path, "/proc") || isInside(path, "/sys") || (isInside(path, "/dev") && !isInside(path, "/dev/shm"))
    }
}
