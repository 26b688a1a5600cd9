import Basics
import Wire
import Foundation

/// Which stored Assemblies are in which part of their life, kept as empty marker files named by
/// id, one folder per part, beside the records: a start lists `live/` and a sweep lists `ended/`,
/// so neither reads the records of history. A marker's time is when its Assembly entered the part.
struct AssemblyIndex: Sendable {
    /// A part of an Assembly's life the index keeps.
    enum Part: String, Sendable, CaseIterable {
        /// Going, or ended with its end not yet announced: loaded at every start.
        case live
        /// Ended and announced, its uploads and results still kept: what the retention sweep looks at.
        case ended
    }

    /// The Assemblies' folder the index lives in.
    let directory: String

    func folder(_ part: Part) -> String { directory + "/" + part.rawValue }
    private func marker(_ id: String, _ part: Part) -> String { folder(part) + "/" + id }

    /// Whether the index was made (a data folder from before it has only records).
    var exists: Bool {
        var info = stat()
        return Part.allCases.allSatisfy { lstat(folder($0), &info) == 0 && info.st_mode & S_IFMT == S_IFDIR }
    }

    /// Makes the index from the records `parts` gives (with the time each entered its part), in
    /// folders made aside and renamed into place, `live/` last: an index cut off midway is made again.
    func build(_ parts: [(id: String, part: Part, since: Date)]) throws {
        for part in Part.allCases {
            try FileSystem.removeIfPresent(folder(part))
            try FileSystem.removeIfPresent(folder(part) + ".new")
            try FileManager.default.createDirectory(atPath: folder(part) + ".new", withIntermediateDirectories: true)
        }
        for entry in parts { try Self.touch(folder(entry.part) + ".new/" + entry.id, at: entry.since) }
        for part in [Part.ended, .live] where rename(folder(part) + ".new", folder(part)) != 0 {
            throw FileError(path: folder(part), operation: "rename", code: errno)
        }
    }

    /// The ids marked `part`.
    func ids(_ part: Part) -> [String] {
        FileSystem.namesOrNone(in: folder(part)).filter(AssemblyID.isValid)
    }

    /// The ids marked `part` with the time each entered it.
    func entries(_ part: Part) -> [(id: String, since: Date)] {
        ids(part).compactMap { id in
            var info = stat()
            guard lstat(marker(id, part), &info) == 0 else { return nil }  // gone since the listing
            return (id, Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9))
        }
    }

    /// Puts `id` in `part` alone (nil: in none, an Assembly whose files went); an Assembly already
    /// in `part` keeps its time there.
    func place(_ id: String, in part: Part?) throws {
        var info = stat()
        if let part, lstat(marker(id, part), &info) != 0 { try Self.touch(marker(id, part), at: Date()) }
        for other in Part.allCases where other != part { unlink(marker(id, other)) }
    }

    /// Creates (or keeps) the empty file at `path`, with `date` as its time.
    private static func touch(_ path: String, at date: Date) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "create", code: errno) }
        defer { close(descriptor) }
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let time = timespec(tv_sec: Int(seconds), tv_nsec: Int((date.timeIntervalSince1970 - seconds) * 1e9))
        var times = [time, time]
        guard futimens(descriptor, &times) == 0 else { throw FileError(path: path, operation: "set the time of", code: errno) }
    }
}
