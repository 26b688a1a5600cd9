import Foundation

/// The path the engine serves a stored file at, `/results/{assembly}/{file}/{name}`: built and
/// read here only.
struct ResultPath: Equatable, Sendable {
    let assembly: String
    let file: String

    /// The path of `file` (named `name`) of `assembly`.
    static func path(assembly: String, file: String, name: String) -> String {
        "/results/" + assembly + "/" + file + "/" + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? file)
    }

    /// The Assembly and file a request path names; `nil` for any other path.
    init?(_ path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 3, parts[0] == "results" else { return nil }
        assembly = String(parts[1])
        file = String(parts[2])
    }
}
