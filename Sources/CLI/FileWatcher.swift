import Basics
import Foundation

/// Watches folders with inotify for `run --watch`: which files were added, removed, renamed or
/// given new bytes (a change of attributes alone, such as `chmod` or `touch`, is none). Editors'
/// own files (swap files, backups, `4913`, `.#` locks, hidden files) and the run's outputs are
/// ignored, so saving a file counts once and a run does not start itself.
final class FileWatcher {
    private let descriptor: Int32
    /// The folder each watch descriptor stands for: with its subfolders, or only for some names.
    private var folders: [Int32: (path: String, recursive: Bool, names: Set<String>?)] = [:]
    private let ignored: [String]
    /// The project's folder (links resolved): a link met below a watched folder is followed only
    /// to a folder inside it, or inside the watched folder it was met in.
    private let project: String
    /// Each folder watched once, by device and inode, however many links lead to it.
    private var visited: Set<FolderIdentity> = []
    private let stop: () -> Bool
    /// What is there and what the burst under way did.
    private var ledger = WatchLedger()
    /// The folders given to watch with their subfolders (a move of one itself is seen only by its own watch).
    private let roots: [String]

    /// Watches `recursive` folders with every subfolder, and in each `single` folder only the
    /// names given; nothing under `ignored` (absolute paths) counts. `stop` is asked while
    /// folders are walked, so Ctrl-C is answered however many there are (`Stopped`).
    init(recursive: [String], single: [String: Set<String>], ignored: [String], project: String, stop: @escaping () -> Bool = { false }) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw WatchError(message: "cannot watch files: \(String(cString: strerror(errno)))") }
        self.ignored = ignored.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.project = RealPath.of(project) ?? RealPath.normalized(project)
        self.stop = stop
        roots = Array(Set(recursive))
        var status = stat()
        for folder in roots {
            if lstat(folder, &status) == 0 { ledger.know(folder) }
            try addTree(folder)
        }
        for (folder, names) in single where !folders.values.contains(where: { $0.path == folder }) {
            guard watch(folder, recursive: false, names: names) else { continue }
            for name in names where lstat(folder + "/" + name, &status) == 0 { ledger.know(folder + "/" + name) }
        }
        guard !folders.isEmpty else { throw WatchError(message: "none of the folders to watch exists") }
    }

    /// Ctrl-C (or SIGTERM) while the folders were walked.
    struct Stopped: Error {}

    deinit { close(descriptor) }

    /// How many folders are watched.
    var folderCount: Int { folders.count }

    struct WatchError: Error {
        var message: String
    }

    /// What the next burst of events changed, once it has been quiet for `quiet` (at most
    /// `longest` after its first event); a burst that changed nothing in the end (a file made and
    /// removed again) is waited past. Nil when `stop` says yes first (asked every 50 ms).
    func nextChanges(quiet: Duration = .milliseconds(300), longest: Duration = .seconds(5), stop: () -> Bool) async -> WatchedChanges? {
        var first: ContinuousClock.Instant?
        var last = ContinuousClock.now
        while true {
            if stop() { return nil }
            let counted = drain()
            let now = ContinuousClock.now
            if counted {
                last = now
                if first == nil { first = now }
            }
            if let started = first, now - last >= quiet || now - started >= longest {
                let changes = ledger.settle()
                if !changes.isEmpty { return changes }
                first = nil
            }
            do { try await Task.sleep(for: .milliseconds(50)) } catch { return nil }
        }
    }

    /// New bytes (a write or a truncation), names that come, go or move; not attributes
    /// (`IN_ATTRIB`: chmod, touch) nor a close after writing (`touch -a` opens for writing too).
    private static let mask = UInt32(IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Watches `root` and every folder below it, walked without recursion: a link to a folder is
    /// followed only inside the project or `root`, never into the system's trees, and a folder
    /// reached twice (two links to `.`) is watched once. What is found is known to be there
    /// (`fresh`: it came in the burst under way, with a folder that came).
    private func addTree(_ root: String, fresh: Bool = false) throws {
        let confinement = RealPath.of(root)
        var pending = [root]
        var walked = 0
        while let folder = pending.popLast() {
            walked += 1
            if walked % 64 == 0, stop() { throw Stopped() }
            guard watch(folder, recursive: true) else { continue }
            let names = FileSystem.namesOrNone(in: folder)
            for name in names where !Self.isEditorFile(name) {
                let path = folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                ledger.know(path, fresh: fresh)
                if info.st_mode & S_IFMT == S_IFLNK {
                    guard let target = RealPath.of(path), !RealPath.isSystemTree(target),
                          RealPath.isInside(target, project) || confinement.map({ RealPath.isInside(target, $0) }) == true else { continue }
                } else if info.st_mode & S_IFMT != S_IFDIR {
                    continue
                }
                pending.append(path)
            }
        }
    }

    /// Adds an inotify watch for `folder` if it is a folder not watched yet; whether it was added.
    private func watch(_ folder: String, recursive: Bool, names: Set<String>? = nil) -> Bool {
        guard !isIgnored(folder) else { return false }
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR,
              visited.insert(FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else { return false }
        let watch = inotify_add_watch(descriptor, folder, Self.mask)
        guard watch >= 0 else { return false }
        folders[watch] = (folder, recursive, names)
        return true
    }

    private struct FolderIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// Reads the events so far into the ledger; whether any of them counted.
    private func drain() -> Bool {
        var counted = false
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            var offset = 0
            // struct inotify_event: int wd; uint32 mask, cookie, len; char name[len].
            while offset + 16 <= count {
                let watch = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int32.self) }
                let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
                let cookie = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self) }
                let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
                let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                offset += 16 + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // Events were lost: what changed is unknown, so a run must look.
                    ledger.overflowed()
                    counted = true
                }
                guard let folder = folders[watch] else { continue }
                if mask & UInt32(IN_IGNORED) != 0 { folders[watch] = nil }
                let name = String(decoding: nameBytes, as: UTF8.self)
                let path = name.isEmpty ? folder.path : folder.path + "/" + name
                guard !Self.isEditorFile(name), !isIgnored(path) else { continue }
                if let names = folder.names, !names.contains(name) { continue }  // beside the manifest, only what matters there
                if record(mask, path: path, cookie: cookie, isSelf: name.isEmpty, recursive: folder.recursive) { counted = true }
            }
        }
        return counted
    }

    /// Records one event for `path` (`isSelf`: the watched folder itself); whether it counts.
    private func record(_ mask: UInt32, path: String, cookie: UInt32, isSelf: Bool, recursive: Bool) -> Bool {
        let isFolder = isSelf || mask & UInt32(IN_ISDIR) != 0
        if isSelf {
            // A folder's own removal or move; a subfolder's is seen in its parent's watch.
            guard mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0, roots.contains(where: { ByteOrder.same($0, path) }) else { return false }
            ledger.record(.gone, path, folder: true)
        } else if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
            if isFolder, let origin = ledger.moveOrigin(cookie) { relocate(origin, to: path) }
            ledger.record(.appeared, path, cookie: cookie, folder: isFolder)
            if recursive, isFolder { try? addTree(path, fresh: true) }  // Stopped: nextChanges asks stop() next
        } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
            ledger.record(.gone, path, cookie: mask & UInt32(IN_MOVED_FROM) != 0 ? cookie : 0, folder: isFolder)
        } else if mask & UInt32(IN_MODIFY) != 0, !isFolder {
            ledger.record(.written, path)
        } else {
            return false
        }
        return true
    }

    /// A watched folder moved from `origin` to `path`: its watches (and its subfolders') follow it.
    private func relocate(_ origin: String, to path: String) {
        let old = Array(origin.utf8), prefix = old + Array("/".utf8)
        for (watch, folder) in folders {
            let bytes = Array(folder.path.utf8)
            guard bytes == old || bytes.starts(with: prefix) else { continue }
            folders[watch]?.path = path + String(decoding: bytes.dropFirst(old.count), as: UTF8.self)
        }
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
