import Foundation

/// What `/proc` says of a process or thread of this machine.
public enum ProcessState {
    /// The one-letter state of process `pid` (`R`, `S`, `Z`…), or nil when there is none.
    public static func of(_ pid: Int32) -> Character? {
        state(in: "/proc/\(pid)/stat")
    }

    /// The one-letter state of thread `tid` of this process, or nil when there is none.
    public static func ofThread(_ tid: Int32) -> Character? {
        state(in: "/proc/self/task/\(tid)/stat")
    }

    /// The id of the calling thread (as `/proc/thread-self` names it).
    public static var currentThread: Int32? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")).flatMap { $0.split(separator: "/").last.flatMap { Int32($0) } }
    }

    /// Whether process `pid` has ended (gone, or a zombie nobody has reaped yet).
    public static func hasEnded(_ pid: Int32) -> Bool {
        guard let state = of(pid) else { return true }
        return state == "Z" || state == "X"
    }

    /// The names of this process's threads now (`/proc/self/task/*/comm`: at most 15 bytes each).
    public static var threadNames: [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []  // no /proc: no names
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)  // a thread that ended meanwhile has none
        }
    }

    private static func state(in file: String) -> Character? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8), let close = text.lastIndex(of: ")") else { return nil }
        // "pid (name) S …": the name may hold spaces and parentheses, so the state follows the last ')'.
        return text[text.index(after: close)...].first { $0 != " " }
    }
}
