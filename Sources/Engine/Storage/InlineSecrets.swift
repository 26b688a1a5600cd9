import Basics
import Foundation
import Spec
import Synchronization

/// Secrets a storage step carries inline (`secret`, `session_token`): taken out of the steps and
/// params before an Assembly is written or reported (their values become `[hidden]`), kept in
/// this process's memory only, for its steps, and forgotten when it ends. An engine that restarts
/// mid-Assembly no longer has them: such a step fails and says to use named credentials.
final class InlineSecrets: Sendable {
    /// What a secret's value becomes in records, statuses and logs.
    static let hidden = "[hidden]"

    private let kept = Mutex<[String: [String: [String: String]]]>([:])

    /// `steps` without secret values, and the values by step and option.
    static func redact(steps: JSONValue) -> (steps: JSONValue, secrets: [String: [String: String]]) {
        guard var object = steps.objectValue else { return (steps, [:]) }
        var secrets: [String: [String: String]] = [:]
        for (name, step) in object {
            guard var options = step.objectValue else { continue }
            for option in StorageSteps.secretParameters {
                guard let value = options[option], value != .string(hidden) else { continue }
                if let text = value.stringValue { secrets[name, default: [:]][option] = text }
                options[option] = .string(hidden)
            }
            object[name] = .object(options)
        }
        return (.object(object), secrets)
    }

    /// The params text with every step's secret values hidden; the same text when it holds none.
    static func redact(params raw: String) -> String {
        guard raw.contains("secret") || raw.contains("session_token"), var params = JSONValue.parseIfValid(Data(raw.utf8)), params["steps"] != nil else { return raw }
        let (steps, secrets) = redact(steps: params["steps"] ?? .null)
        guard !secrets.isEmpty, case .object(var object) = params else { return raw }
        object["steps"] = steps
        params = .object(object)
        return params.serialized()
    }

    /// Keeps `secrets` for the Assembly `id`.
    func keep(_ secrets: [String: [String: String]], for id: String) {
        guard !secrets.isEmpty else { return }
        kept.withLock { $0[id] = secrets }
    }

    /// The secrets of step `step` of Assembly `id`.
    func secrets(of id: String, step: String) -> [String: String] {
        kept.withLock { $0[id]?[step] ?? [:] }
    }

    /// Forgets the Assembly `id`'s secrets (it ended).
    func forget(_ id: String) {
        _ = kept.withLock { $0.removeValue(forKey: id) }
    }
}
