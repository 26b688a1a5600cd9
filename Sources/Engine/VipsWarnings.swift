internal import CVips
import Basics
import Foundation
import Synchronization

/// libvips' warnings, each given to the file that caused it: a damaged JPEG still decodes, with
/// "Corrupt JPEG data: premature end of data segment", and its owner should hear of it. libvips
/// says them from its own threads, naming no file, with the text of its process-wide error
/// buffer (which holds other files' words too). So each file a robot works on is a scope; a
/// scope that heard any warning decodes its file again once it ends, alone (no other scope
/// runs meanwhile) and with the error buffer emptied, and keeps exactly what that decode says.
/// Warnings are rare (damaged files), so the second decode costs little.
enum VipsWarnings {
    /// Runs `body`, the work of a robot on the file at `path`, and gives what it made with
    /// libvips' warnings about that file: at most `limit`, each once, naming `name` instead of
    /// the engine's copy. Scopes do not nest: `body` opens none.
    static func watching<Made>(
        _ path: String, name: String, _ body: () throws(RobotError) -> Made
    ) throws(RobotError) -> (made: Made, warnings: [String]) {
        gate.shared()
        let id = state.withLock { $0.open() }
        let made: Made
        do {
            made = try body()
        } catch {
            _ = state.withLock { $0.close(id) }
            gate.unlock()
            throw error
        }
        let heard = state.withLock { $0.close(id) }
        gate.unlock()
        return (made, heard ? tidy(alone(decoding: path), path: path, name: name) : [])
    }

    /// Starts passing libvips' warnings here (once libvips runs).
    static func install() {
        _ = pipeline_vips_send_warnings { message in
            guard let message else { return }
            let text = String(cString: message)
            VipsWarnings.state.withLock { $0.hear(text) }
        }
    }

    /// The most warnings one file keeps: a badly damaged file can give one per row.
    static let limit = 10

    /// Which open scopes heard a warning, and what the one decode running alone hears.
    struct Listeners {
        private var next = 0
        private var scopes: [Int: Bool] = [:]
        private var alone: [String]?

        /// A new scope that has heard nothing.
        mutating func open() -> Int {
            next += 1
            scopes[next] = false
            return next
        }

        /// Ends a scope: whether it heard any warning.
        mutating func close(_ id: Int) -> Bool { scopes.removeValue(forKey: id) ?? false }

        /// A warning: every open scope heard it, and the decode running alone keeps its words.
        mutating func hear(_ text: String) {
            for id in scopes.keys { scopes[id] = true }
            if alone != nil, alone?.count ?? 0 < VipsWarnings.limit * 4 { alone?.append(text) }
        }

        /// Starts keeping the words of the decode that runs alone.
        mutating func startKeeping() { alone = [] }

        /// Stops keeping them, and gives what was kept (nothing when nothing was being kept).
        mutating func stopKeeping() -> [String] {
            defer { alone = nil }
            return alone ?? []
        }
    }

    private static let state = Mutex(Listeners())
    private static let gate = ReadWriteGate()

    /// What decoding `path` says with no other scope running and libvips' error buffer empty.
    private static func alone(decoding path: String) -> [String] {
        gate.exclusive()
        defer { gate.unlock() }
        _ = VipsLibrary.lastError()
        state.withLock { $0.startKeeping() }
        _ = decodeAll(path)
        return state.withLock { $0.stopKeeping() }
    }

    /// Decodes every pixel of the image at `path`; false (the error cleared) when libvips reads
    /// no image there.
    static func decodeAll(_ path: String) -> Bool {
        guard pipeline_vips_decode_all(path) == 0 else {
            _ = VipsLibrary.lastError()
            return false
        }
        _ = VipsLibrary.lastError()
        return true
    }

    /// Each line once, in order, without libvips' count of them ("read gave 2 warnings"), naming
    /// the upload instead of the engine's copy of it.
    static func tidy(_ messages: [String], path: String, name: String) -> [String] {
        var kept: [String] = []
        for line in messages.flatMap({ $0.split(whereSeparator: \.isNewline) }) {
            let text = line.replacingOccurrences(of: path, with: name).trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.wholeMatch(of: /read gave \d+ warnings?/) != nil || kept.contains(text) { continue }
            kept.append(text)
        }
        return Array(kept.prefix(limit))
    }
}

/// Scopes share it; a decode that must run alone takes it whole (a waiting one goes before new
/// scopes, so a busy engine still lets it in). Whoever cannot enter waits for a wake-up, given
/// to every waiter at each exit; each then looks again.
private final class ReadWriteGate: Sendable {
    private struct State {
        var sharing = 0
        var alone = false
        var waitingAlone = 0
        var waiters: [WakeSignal] = []
    }

    private let state = Mutex(State())

    func shared() {
        enter { state in
            guard !state.alone, state.waitingAlone == 0 else { return false }
            state.sharing += 1
            return true
        }
    }

    func exclusive() {
        state.withLock { $0.waitingAlone += 1 }
        enter { state in
            guard !state.alone, state.sharing == 0 else { return false }
            state.waitingAlone -= 1
            state.alone = true
            return true
        }
    }

    func unlock() {
        let waiters = state.withLock { state in
            if state.alone { state.alone = false } else { state.sharing -= 1 }
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.signal() }
    }

    /// Waits until `admits` lets this thread in (it changes the state when it does).
    private func enter(_ admits: (inout State) -> Bool) {
        while true {
            let signal = state.withLock { state -> WakeSignal? in
                guard !admits(&state) else { return nil }
                let signal = WakeSignal()
                state.waiters.append(signal)
                return signal
            }
            guard let signal else { return }
            signal.wait()
        }
    }
}
