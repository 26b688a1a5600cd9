import Foundation
import TestSupport

/// The project a sequence of actions works on: its files (each name kept byte for byte: NFC and
/// NFD spellings are two files) and its manifest's settings, written to a folder.
struct ModelProject {
    /// Source files by exact name, in the order made.
    private(set) var files: [(path: String, data: Data)] = []
    var width = 16
    var ignoreErrors = false
    var download = "build"

    /// The manifest: one job resizing every PNG under `img/`, batched by 3, downloaded.
    var manifest: String {
        """
        version: 1
        name: model
        endpoint: local
        auth:
          key: model-key
        results: results.json
        assemblies:
          thumbs:
            inputs: ["img/**/*.png"]
            allow_empty: true
            batch: 3
            steps:
              small:
                robot: /image/resize
                use: ":original"
                width: \(width)
                resize_strategy: fit\(ignoreErrors ? "\n        ignore_errors: true" : "")
                result: true
            download: \(download)

        """
    }

    /// The file named exactly `path`, if any.
    func index(of path: String) -> Int? { files.firstIndex { Array($0.path.utf8) == Array(path.utf8) } }

    /// Applies a change of files or manifest to the model and to `folder`; false when it does
    /// not apply (its file is gone, its target taken), which leaves everything as it was.
    mutating func apply(_ action: ModelAction, in folder: String) throws -> Bool {
        switch action {
        case .add(let path, let image):
            guard index(of: path) == nil else { return false }
            try put(path, TestImages.png(width: image.width, height: image.height), in: folder)
        case .copy(let from, let to):
            guard let source = index(of: from), index(of: to) == nil else { return false }
            try put(to, files[source].data, in: folder)
        case .move(let from, let to):
            guard let source = index(of: from), index(of: to) == nil else { return false }
            let data = files[source].data
            try remove(from, in: folder)
            try put(to, data, in: folder)
        case .delete(let path):
            guard index(of: path) != nil else { return false }
            try remove(path, in: folder)
        case .rewrite(let path, let image):
            guard index(of: path) != nil else { return false }
            try put(path, TestImages.png(width: image.width, height: image.height), in: folder)
        case .twin(let path, let image):
            let other = Self.otherNormalization(path)
            guard index(of: path) != nil, Array(other.utf8) != Array(path.utf8), index(of: other) == nil else { return false }
            try put(other, TestImages.png(width: image.width, height: image.height), in: folder)
        case .width(let width): self.width = width
        case .ignoreErrors(let on): ignoreErrors = on
        case .download(let folder): download = folder
        case .deadEndpoint, .interrupt: return true
        }
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: folder + "/pipeline.yml"))
        return true
    }

    /// Writes every file and the manifest into an empty `folder`: the clean project.
    func write(into folder: String) throws {
        for (path, data) in files { try Self.write(data, to: folder + "/" + path) }
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: folder + "/pipeline.yml"))
    }

    /// `path` with its name in the other Unicode normalization (NFD for NFC, else NFC).
    static func otherNormalization(_ path: String) -> String {
        let decomposed = path.decomposedStringWithCanonicalMapping
        return Array(decomposed.utf8) == Array(path.utf8) ? path.precomposedStringWithCanonicalMapping : decomposed
    }

    private mutating func put(_ path: String, _ data: Data, in folder: String) throws {
        try Self.write(data, to: folder + "/" + path)
        if let index = index(of: path) { files[index].data = data } else { files.append((path, data)) }
    }

    private mutating func remove(_ path: String, in folder: String) throws {
        guard unlink(folder + "/" + path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        files.removeAll { Array($0.path.utf8) == Array(path.utf8) }
    }

    /// Writes by the exact bytes of the name (Foundation's URL would keep them too, but a
    /// POSIX write says plainly what is meant).
    private static func write(_ data: Data, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    }
}
