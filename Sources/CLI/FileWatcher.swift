import Foundation

/// Watches folders with inotify for `run --watch`: which files were written, made, moved or
/// removed. Editors' own files (swap files, backups, `4913`, `.#` locks, hidden files) and the
/// run's outputs are ignored, so saving a file counts once and a run does not start itself.
final class FileWatcher {
    private let descriptor: Int32
    /// The folder each watch descriptor stands for: with its subfolders, or only for some names.
    private var folders: [Int32: (path: String, recursive: Bool, names: Set<String>?)] = [:]
    private let ignored: [String]

    /// Watches `recursive` folders with every subfolder, and in each `single` folder only the
    /// names given; nothing under `ignored` (absolute paths) counts.
    init(recursive: [String], single: [String: Set<String>], ignored: [String]) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw WatchError(message: "cannot watch files: \(String(cString: strerror(errno)))") }
        self.ignored = ignored.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        for folder in Set(recursive) { add(folder, recursive: true) }
        for (folder, names) in single where !folders.values.contains(where: { $0.path == folder }) { add(folder, recursive: false, names: names) }
        guard !folders.isEmpty else { throw WatchError(message: "none of the folders to watch exists") }
    }

    deinit { close(descriptor) }

    /// How many folders are watched.
    var folderCount: Int { folders.count }

    struct WatchError: Error {
        var message: String
    }

    /// The paths that changed, once a burst of changes has been quiet for `quiet` (at most
    /// `longest` after the first); nil when `stop` says yes first (asked every 50 ms).
    func nextChanges(quiet: Duration = .milliseconds(300), longest: Duration = .seconds(5), stop: () -> Bool) async -> [String]? {
        var changed: [String] = []
        var first: ContinuousClock.Instant?
        var last = ContinuousClock.now
        while true {
            if stop() { return nil }
            let fresh = drain()
            let now = ContinuousClock.now
            if !fresh.isEmpty {
                changed += fresh
                last = now
                if first == nil { first = now }
            }
            if let first, now - last >= quiet || now - first >= longest { return Array(Set(changed)).sorted() }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    private static let mask = UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF)

    private func add(_ folder: String, recursive: Bool, names: Set<String>? = nil) {
        guard !isIgnored(folder) else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else { return }
        let watch = inotify_add_watch(descriptor, folder, Self.mask)
        guard watch >= 0 else { return }
        folders[watch] = (folder, recursive, names)
        guard recursive, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where !Self.isEditorFile(name) {
            add(folder + "/" + name, recursive: true)
        }
    }

    /// The paths of the events read so far that count.
    private func drain() -> [String] {
        var paths: [String] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            var offset = 0
            // struct inotify_event: int wd; uint32 mask, cookie, len; char name[len].
            while offset + 16 <= count {
                let watch = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int32.self) }
                let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
                let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
                let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                offset += 16 + length
                guard let folder = folders[watch] else { continue }
                let name = String(decoding: nameBytes, as: UTF8.self)
                let path = name.isEmpty ? folder.path : folder.path + "/" + name
                if mask & UInt32(IN_IGNORED) != 0 { folders[watch] = nil }
                guard !Self.isEditorFile(name), !isIgnored(path) else { continue }
                if let names = folder.names {
                    // A file or folder that matters here came, changed or went.
                    if names.contains(name) { paths.append(path) }
                    continue
                }
                if folder.recursive, mask & UInt32(IN_ISDIR) != 0, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { add(path, recursive: true) }
                if mask & UInt32(IN_ISDIR) == 0 || mask & UInt32(IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO) != 0 { paths.append(path) }
            }
        }
        return paths
    }

    private func isIgnored(_ path: String) -> Bool {
        ignored.contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    /// Files editors make while saving, and hidden files.
    static func isEditorFile(_ name: String) -> Bool {
        name.hasPrefix(".") || name.hasPrefix("#") || name.hasSuffix("~") || name == "4913"
            || [".swp", ".swx", ".swo", ".tmp", ".part", ".crdownload", "___jb_tmp___", "___jb_old___"].contains { name.hasSuffix($0) }
    }
}
