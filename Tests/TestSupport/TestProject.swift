import Foundation

/// The projects run tests need, written once here rather than in each test: one job that hashes
/// files, or one that resizes images, signed for the Auth Key `test-key`.
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

    /// A fresh folder with PNGs under `images/` (name: width and height) and a `pipeline.yml`
    /// whose job `thumbs` runs `steps` (YAML lines indented by six spaces) on `images/*.png`;
    /// nil `name`, `batch` or `download` leave their line out, `extra` goes at the end.
    public static func resizing(
        prefix: String, endpoint: String, images: [String: (width: Int, height: Int)], steps: String, name: String? = nil,
        key: String = "test-key", results: String = "results.json", batch: String? = nil, download: String? = nil, extra: String = ""
    ) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: prefix)
        for (file, size) in images { try directory.write("images/" + file, data: TestImages.png(width: size.width, height: size.height)) }
        var lines = ["version: 1"] + (name.map { ["name: \($0)"] } ?? [])
        lines += ["endpoint: \(endpoint)", "auth:", "  key: \(key)", "results: \(results)", "assemblies:", "  thumbs:", "    inputs: [\"images/*.png\"]"]
        if let batch { lines.append("    batch: \(batch)") }
        lines += ["    steps:", steps]
        if let download { lines.append("    download: \(download)") }
        lines.append(extra)
        try directory.write("pipeline.yml", lines.joined(separator: "\n") + "\n")
        return directory
    }

    /// `size` random bytes (rounded down to whole 8-byte words).
    public static func random(_ size: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<size / 8).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } })
    }
}
