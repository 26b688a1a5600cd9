import Foundation

/// Fixtures that take seconds of media tools to make, made once and kept below
/// `.build/test-fixtures/` for every later test, process and run (the suite runs its classes in
/// parallel processes). A fixture is keyed by its name and the SHA-256 of the source file that
/// makes it, so changing the recipe makes it anew; two processes making it at once both succeed,
/// and the first to finish is kept.
public enum FixtureCache {
    /// The folder holding the fixture `name`, made by `make` (into an empty folder) if it is not
    /// there yet. `recipe` is the file that makes it, `#filePath` at the caller.
    public static func folder(_ name: String, recipe: String, make: (String) throws -> Void) throws -> String {
        let key = FileHashing.sha256((try? Data(contentsOf: URL(fileURLWithPath: recipe))) ?? Data(recipe.utf8)).prefix(16)
        let root = PackageRoot.path + "/.build/test-fixtures"
        let folder = "\(root)/\(name)-\(key)"
        if FileManager.default.fileExists(atPath: folder + "/.complete") { return folder }
        let making = "\(folder).making-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: making, withIntermediateDirectories: true)
        do {
            try make(making)
            guard FileManager.default.createFile(atPath: making + "/.complete", contents: Data()) else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(atPath: making)  // a half-made fixture is never kept
            throw error
        }
        // rename(2) onto a folder another process finished first fails (it is not empty): theirs is kept.
        if rename(making, folder) != 0 { try? FileManager.default.removeItem(atPath: making) }  // theirs is as good
        return folder
    }

    /// Copies what `folder` holds (a `.complete` mark apart) into `destination`, which may
    /// already hold other files.
    public static func copy(_ folder: String, into destination: String) throws {
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name != ".complete" {
            try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: destination + "/" + name)
        }
    }
}
