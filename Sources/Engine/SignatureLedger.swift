import Basics
import Crypto
import Foundation
import Synchronization

/// The signatures the engine has accepted, kept until each one's `auth.expires` so a captured
/// request is refused after a restart too. One line per signature in `signatures.log` in the data
/// folder: the expiry (seconds since 1970) and the SHA-256 of the signature, never the signature.
/// Expired ones are dropped at start and whenever the ledger has doubled since, from memory and
/// file alike, so an engine that runs for months holds the signatures that can still be replayed.
final class SignatureLedger: UsedSignatures {
    private struct State {
        var seen: [String: TimeInterval]
        var descriptor: Int32
        /// Signatures kept by the last compaction.
        var kept: Int
    }

    private let path: String
    private let state: Mutex<State>
    /// Fewer signatures than this are never compacted.
    static let compactionFloor = 4096

    /// Loads the ledger, dropping expired entries (the file is rewritten without them). A ledger
    /// that cannot be read or written, or holds a line that is not one of its own, is an error:
    /// an engine that forgot the signatures it took (and then wrote over the file) would take a
    /// replayed one. Only a last line without its line break (a write cut short) is dropped.
    init(path: String, now: Date = Date()) throws {
        self.path = path
        var seen: [String: TimeInterval] = [:]
        if let data = try FileSystem.readIfPresent(path, limit: 1 << 30) {
            let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where !line.isEmpty {
                let parts = String(decoding: line, as: UTF8.self).split(separator: " ")
                guard parts.count == 2, let expires = TimeInterval(parts[0]), parts[1].count == 64, parts[1].allSatisfy(\.isHexDigit) else {
                    if number == lines.count - 1 { continue }  // torn: never written whole
                    throw FileError(path: path, operation: "read", code: EINVAL, reason: "line \(number + 1) is not one of the signatures this engine records; "
                        + "move the file away only knowing that the engine then takes again any signature it took that has not expired")
                }
                if expires > now.timeIntervalSince1970 { seen[String(parts[1])] = expires }
            }
        }
        state = Mutex(State(seen: seen, descriptor: try Self.rewrite(path, with: seen), kept: seen.count))
    }

    /// Writes `seen` as the whole ledger at `path` and opens it to append to.
    private static func rewrite(_ path: String, with seen: [String: TimeInterval]) throws -> Int32 {
        let text = seen.sorted { $0.key < $1.key }.map { "\(Int($0.value.rounded(.up))) \($0.key)\n" }.joined()
        try AtomicFile.write(Data(text.utf8), to: path)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "open", code: errno) }
        return descriptor
    }

    /// Signatures held now.
    var count: Int { state.withLock { $0.seen.count } }

    /// The signatures held, as their digests and expiry (seconds since 1970).
    var unexpired: [String: TimeInterval] { state.withLock { $0.seen } }

    deinit {
        state.withLock { if $0.descriptor >= 0 { close($0.descriptor) } }
    }

    /// Records `signature` until `expires`; `false` when it was recorded before.
    func insert(_ signature: String, expires: Date, now: Date) -> Bool {
        let digest = SHA256.hex(signature)
        return state.withLock { state in
            if let known = state.seen[digest], known > now.timeIntervalSince1970 { return false }
            if state.seen.count >= max(Self.compactionFloor, 2 * state.kept) { compact(&state, now: now) }
            state.seen[digest] = expires.timeIntervalSince1970
            let line = "\(Int(expires.timeIntervalSince1970.rounded(.up))) \(digest)\n"
            // Remembered in memory whatever happens; on disk unless the disk refuses (then a
            // restart forgets it, as it would forget everything in a full data folder).
            var text = line
            if text.withUTF8({ SystemCall.writeAll(UnsafeRawBufferPointer($0), to: state.descriptor) }) == nil { fsync(state.descriptor) }
            return true
        }
    }

    /// Drops the expired signatures from memory and from the file. A file that cannot be
    /// rewritten is appended to as it was: it still holds every signature that has not expired.
    private func compact(_ state: inout State, now: Date) {
        state.seen = state.seen.filter { $0.value > now.timeIntervalSince1970 }
        state.kept = state.seen.count
        do {
            let descriptor = try Self.rewrite(path, with: state.seen)
            close(state.descriptor)
            state.descriptor = descriptor
        } catch {
            return  // kept appending to the old file
        }
    }
}
