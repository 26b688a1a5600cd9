import Basics

/// The metadata most tus servers expect for a file.
enum MediaType {
    /// `filename` and `filetype` for `path`.
    static func defaultMetadata(for path: String) -> [String: String] {
        ["filename": path.split(separator: "/").last.map(String.init) ?? path, "filetype": MediaTypes.guess(path)]
    }
}
