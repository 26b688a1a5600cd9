import Foundation

/// A file of our own in the temporary folder, removed by its owner.
struct TemporaryFile {
    let path: String

    init(contents: Data) throws {
        path = NSTemporaryDirectory() + "/pipeline-\(UUID().uuidString)"
        try contents.write(to: URL(fileURLWithPath: path))
    }

    func remove() { unlink(path) }
}
