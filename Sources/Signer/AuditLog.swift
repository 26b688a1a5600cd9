import Basics
import Crypto
import Foundation

/// Who asked, as far as the signer got in telling: the caller (a static caller or the matched
/// identity) and, for identity tokens, the provider and the verified subject.
struct Attempt: Sendable {
    var caller: Callers.Caller?
    var provider: String?
    var subject: String?
}

/// One JSON line per decision: time, caller, provider and subject (for identity tokens), decision,
/// status, violations and the SHA-256 of the params. Never the secret, the token or the signature.
final class AuditLog: @unchecked Sendable {
    private let handle: FileHandle?
    private let lock = NSLock()

    init(path: String?) throws {
        guard let path else {
            handle = nil
            return
        }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw FileError(path: path, operation: "create", code: errno)
            }
        }
        handle = FileHandle(forWritingAtPath: path)
        _ = try handle?.seekToEnd()
    }

    func record(_ attempt: Attempt, decision: String, status: Int, violations: [JSONValue], params: String?) {
        guard let handle else { return }
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
        lock.withLock { try? handle.write(contentsOf: line) }
    }
}
