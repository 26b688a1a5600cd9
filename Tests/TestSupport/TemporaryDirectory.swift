import Foundation

/// A fresh folder under the system's temporary folder, removed by `remove()`.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The folder's absolute path (symbolic links resolved).
    public let path: String

    /// Creates the folder.
    public init(prefix: String = "pipeline-test") throws {
        let template = NSTemporaryDirectory() + "/\(prefix).XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let created = mkdtemp(&bytes) else {
            throw NSError(domain: "TemporaryDirectory", code: Int(errno))
        }
        let raw = String(cString: created)
        path = URL(fileURLWithPath: raw).resolvingSymlinksInPath().path
    }

    /// Writes `text` to `relative`, creating folders as needed; returns the absolute path.
    @discardableResult
    public func write(_ relative: String, _ text: String) throws -> String {
        try write(relative, data: Data(text.utf8))
    }

    /// Writes bytes to `relative`, creating folders as needed; returns the absolute path.
    @discardableResult
    public func write(_ relative: String, data: Data) throws -> String {
        let full = path + "/" + relative
        let folder = (full as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: full))
        return full
    }

    /// Creates a folder at `relative`.
    public func makeDirectory(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path + "/" + relative, withIntermediateDirectories: true)
    }

    /// Creates a symbolic link at `relative` pointing to `destination`.
    public func symlink(_ relative: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path + "/" + relative, withDestinationPath: destination)
    }

    /// Deletes the folder and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The root of the package, found from this source file's location.
public enum PackageRoot {
    /// The absolute path of the package root.
    public static var path: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }
}

