import Foundation

/// SHA-256 of bytes, computed by the system's `sha256sum` (an implementation independent of ours).
public enum FileHashing {
    /// Lowercase hex SHA-256 of `data`.
    public static func sha256(_ data: Data) -> String {
        let path = NSTemporaryDirectory() + "/hash-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: path, contents: data) else { return "" }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try? ProcessRunner.run("/usr/bin/sha256sum", [path])
        return String(result?.stdout.prefix(64) ?? "")
    }
}
