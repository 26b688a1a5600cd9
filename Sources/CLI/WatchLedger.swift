import Basics
import Foundation

/// What one settled burst of file events did, by its net effect on each path: a file made and
/// removed again in the burst is no change, one removed and made again is a changed one.
struct WatchedChanges: Equatable {
    /// One path that moved to another within the watched folders.
    struct Rename: Equatable {
        var from: String
        var to: String
    }

    var added: [String] = []
    var removed: [String] = []
    var renamed: [Rename] = []
    var changed: [String] = []
    /// The system dropped events (too many at once): what changed is not known.
    var lost = false

    /// Nothing came, went, moved or was written.
    var isEmpty: Bool { !lost && added.isEmpty && removed.isEmpty && renamed.isEmpty && changed.isEmpty }

    /// "added a, b; renamed c → d; removed e; changed f", at most three paths of each kind (then
    /// "and N more"), each shown by `shown` and made printable.
    func described(_ shown: (String) -> String) -> String {
        func list(_ kind: String, _ items: [String]) -> String? {
            guard !items.isEmpty else { return nil }
            let first = items.prefix(3).map { TerminalText.printable($0) }.joined(separator: ", ")
            return "\(kind) \(first)\(items.count > 3 ? " and \(items.count - 3) more" : "")"
        }
        return [
            list("added", added.map(shown)), list("renamed", renamed.map { "\(shown($0.from)) → \(shown($0.to))" }),
            list("removed", removed.map(shown)), list("changed", changed.map(shown)),
            lost ? "more changes than the system could list at once" : nil,
        ].compactMap { $0 }.joined(separator: "; ")
    }
}

/// The paths a watch knows to be there, and the events of the burst under way, keyed by the exact
/// bytes of each path (names that differ only by Unicode normalization are two files).
struct WatchLedger {
    /// What an event did to its path.
    enum Event {
        case appeared, gone, written
    }

    private var present: Set<[UInt8]> = []
    /// Whether each path touched in this burst (or listed as new in it) was there before it.
    private var before: [[UInt8]: Bool] = [:]
    /// The paths touched in this burst, in the order first touched.
    private var touched: [String] = []
    private var touchedKeys: Set<[UInt8]> = []
    /// Moves out of a path, by inotify cookie, waiting for the move into another.
    private var leaving: [UInt32: (path: String, folder: Bool)] = [:]
    /// Each moved path's final place in this burst (a chain of moves counts as one).
    private var moves: [(from: String, to: String)] = []
    /// Each move's index in `moves`, by where it went.
    private var moveTo: [[UInt8]: Int] = [:]

    /// Events were dropped: the burst changed something unknown.
    private var lost = false

    /// `path` is there when the watch begins (`fresh`: it came during this burst, inside a folder
    /// that came).
    mutating func know(_ path: String, fresh: Bool = false) {
        let key = Array(path.utf8)
        if fresh, before[key] == nil { before[key] = false }
        present.insert(key)
    }

    /// Records one event; `cookie` pairs the two halves of a move (0 for other events), `folder`
    /// says the path is a folder (a folder moved within the watch keeps what is known inside it).
    mutating func record(_ event: Event, _ path: String, cookie: UInt32 = 0, folder: Bool = false) {
        let key = Array(path.utf8)
        if before[key] == nil { before[key] = present.contains(key) }
        if touchedKeys.insert(key).inserted { touched.append(path) }
        switch event {
        case .appeared, .written:
            present.insert(key)
            guard event == .appeared, cookie != 0, let from = leaving.removeValue(forKey: cookie)?.path else { return }
            if folder { move(inside: from, to: path) }
            if let chained = moveTo.removeValue(forKey: Array(from.utf8)) {
                moves[chained].to = path
                moveTo[key] = chained
            } else {
                moveTo[key] = moves.count
                moves.append((from, path))
            }
        case .gone:
            present.remove(key)
            if cookie != 0 { leaving[cookie] = (path, folder) } else if folder { move(inside: path, to: nil) }
        }
    }

    /// What was known inside folder `from` is known inside `to` (nil: is gone).
    private mutating func move(inside from: String, to: String?) {
        let old = Array((from + "/").utf8)
        let moved = present.filter { $0.starts(with: old) }
        present.subtract(moved)
        if let to { present.formUnion(moved.map { Array((to + "/").utf8) + $0.dropFirst(old.count) }) }
    }

    /// The system dropped events; the burst counts as a change whatever else it holds.
    mutating func overflowed() { lost = true }

    /// The path a move with `cookie` left, while its other half is awaited.
    func moveOrigin(_ cookie: UInt32) -> String? { leaving[cookie]?.path }

    /// The burst's net changes; the next burst starts empty.
    mutating func settle() -> WatchedChanges {
        var changes = WatchedChanges(lost: lost)
        var done: Set<[UInt8]> = []
        let (present, before) = (self.present, self.before)
        let there = { (path: String) in present.contains(Array(path.utf8)) }
        let was = { (path: String) in before[Array(path.utf8)] ?? there(path) }
        for move in moves where was(move.from) && !there(move.from) && there(move.to) {
            changes.renamed.append(.init(from: move.from, to: move.to))
            done.formUnion([Array(move.from.utf8), Array(move.to.utf8)])
        }
        for path in touched where !done.contains(Array(path.utf8)) {
            switch (was(path), there(path)) {
            case (false, true): changes.added.append(path)
            case (true, false): changes.removed.append(path)
            case (true, true): changes.changed.append(path)
            case (false, false): continue
            }
        }
        // A folder moved out of the watch took what was inside it.
        for (from, folder) in leaving.values where folder { move(inside: from, to: nil) }
        (self.before, touched, touchedKeys, leaving, moves, moveTo, lost) = ([:], [], [], [:], [], [:], false)
        return changes
    }
}
