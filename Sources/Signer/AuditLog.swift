import Basics
import Crypto
import Foundation
import Synchronization

/// Who asked, as far as the signer got in telling: the caller (a static caller or the matched
/// identity) and, for identity tokens, the provider and the verified subject.
struct Attempt: Sendable {
    var caller: Callers.Caller?
    var provider: String?
    var subject: String?
}

/// One JSON line per decision: time, caller, provider and subject (for identity tokens), decision,
/// status, violations and the SHA-256 of the params. Never the secret, the token or the signature.
final class AuditLog: Sendable {
    /// Opened for appending, so each line is written whole at the end; -1 without a log.
    private let descriptor: Int32
    private let path: String?
    private let failed = Mutex(false)

    init(path: String?) throws {
        self.path = path
        guard let path else {
            descriptor = -1
            return
        }
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "open", code: errno) }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    func record(_ attempt: Attempt, decision: String, status: Int, violations: [JSONValue], params: String?) {
        guard descriptor >= 0 else { return }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var entry: [String: JSONValue] = [
            "time": .string(formatter.string(from: Date())), "caller": attempt.caller.map { .string($0.name) } ?? .null,
            "decision": .string(decision), "status": .int(status), "violations": .array(violations),
        ]
        if let provider = attempt.provider { entry["provider"] = .string(provider) }
        if let subject = attempt.subject { entry["subject"] = .string(subject) }
        if let params { entry["params_sha256"] = .string(SHA256.hex(params)) }
        let line = Data((JSONValue.object(entry).serialized() + "\n").utf8)
        guard let failure = line.withUnsafeBytes({ SystemCall.writeAll($0, to: descriptor) }) else { return }
        // An audit line that cannot be written is said on standard error, once, not dropped unseen.
        if failed.withLock({ seen in defer { seen = true }; return !seen }) {
            FileHandle.standardError.write(Data("pipeline signer: warning: cannot write the audit log '\(path ?? "")': \(String(cString: strerror(failure)))\n".utf8))
        }
    }
}
