import Foundation

/// The project most run tests need: one job, `hashes`, that hashes `FOLDER/*.bin` with
/// `/file/hash`, signed for the Auth Key `test-key`; written once here rather than in each test.
public enum TestProject {
    /// A fresh folder with `files` (names relative to `folder`) and its `pipeline.yml`.
    /// `authLines` (given the folder's path) go under `auth:` after the key (a signer, say); nil
    /// `results`, `batch` or `algorithm` leave their line out (the defaults).
    public static func hashing(
        prefix: String, endpoint: String, files: [String: Data], folder: String = "files", batch: String? = nil,
        algorithm: String? = nil, results: String? = "results.json", authLines: (String) -> [String] = { _ in [] }
    ) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: prefix)
        for (name, data) in files { try directory.write(folder + "/" + name, data: data) }
        var lines = ["version: 1", "endpoint: \(endpoint)", "auth:", "  key: test-key"] + authLines(directory.path).map { "  " + $0 }
        if let results { lines.append("results: \(results)") }
        lines += ["assemblies:", "  hashes:", "    inputs: [\"\(folder)/*.bin\"]"]
        if let batch { lines.append("    batch: \(batch)") }
        let options = algorithm.map { ", algorithm: \($0)" } ?? ""
        lines += ["    steps:", "      hash: {robot: /file/hash, use: \":original\"\(options)}"]
        try directory.write("pipeline.yml", lines.joined(separator: "\n") + "\n")
        return directory
    }

    /// `size` random bytes (rounded down to whole 8-byte words).
    public static func random(_ size: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<size / 8).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } })
    }
}
