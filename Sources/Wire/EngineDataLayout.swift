import Basics
import Foundation

/// The embedded engine's data folder: where the engine keeps its Assemblies' records, uploads and
/// results, and how the runner finds its way in it. The engine lays the folder out with these
/// names and the runner reads it only through this type, so the two cannot drift apart.
public struct EngineDataLayout: Sendable {
    /// The data folder.
    public let directory: String

    /// The layout of the data folder `directory`.
    public init(_ directory: String) { self.directory = directory }

    /// The Assemblies' records, `<id>.json` each, with their uploads in `<id>/uploads/`.
    public var assemblies: String { directory + "/assemblies" }
    /// The tus uploads not yet taken by an Assembly.
    public var uploads: String { directory + "/uploads" }
    /// The Assemblies' results, in `<id>/` each.
    public var results: String { directory + "/results" }
    /// Requests being received, before their files join an Assembly.
    public var incoming: String { directory + "/incoming" }

    /// The record of Assembly `id`.
    public func record(of id: String) -> String { assemblies + "/" + id + ".json" }

    /// Where in the results the file at `path` lies: the Assembly whose results hold it and the
    /// folders between its results folder and the file (empty for a file right in it); nil for a
    /// path outside the results.
    public func resultPlace(of path: String) -> (assembly: String, folder: String)? {
        let root = RealPath.normalized(directory) + "/results/"
        let normalized = RealPath.normalized(path)
        guard normalized.hasPrefix(root) else { return nil }
        let parts = normalized.dropFirst(root.count).split(separator: "/").map(String.init)
        guard let id = parts.first else { return nil }
        return (id, parts.count < 3 ? "" : parts.dropFirst().dropLast().joined(separator: "/"))
    }

    /// What the record of Assembly `id` says of where it is; nil when there is no such record,
    /// it is no regular file or it cannot be read. Read without waiting on anything else, its
    /// uploads passed over one at a time (an Assembly of many files has a large record).
    public func storedState(of id: String) -> StoredAssemblyState? {
        guard AssemblyID.isValid(id), let stream = JSONObjectStream(path: record(of: id)) else { return nil }
        var members: [String: JSONValue] = [:]
        do {
            try stream.read(streaming: "uploads", element: { _ in }, member: { members[$0] = $1 })
            return try JSONValueDecoder.decode(StoredAssemblyState.self, from: .object(members))
        } catch {
            return nil  // damaged: nothing known
        }
    }
}

/// What an engine Assembly's record says of where it is: its status's `ok` and `error`, as the
/// record stores them.
public struct StoredAssemblyState: Codable, Sendable, Equatable {
    /// `ok` while it has not failed.
    public var ok: AssemblyStatusCode?
    /// The error code of a failed Assembly.
    public var error: APIErrorCode?

    /// Creates the state.
    public init(ok: AssemblyStatusCode?, error: APIErrorCode?) { (self.ok, self.error) = (ok, error) }

    /// Reads the state leniently: a member that is no string is absent.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        (ok, error) = (values.lenient(AssemblyStatusCode.self, .ok), values.lenient(APIErrorCode.self, .error))
    }

    /// The state in one word (the error code, else `ok`) when it reads as a code
    /// (`IMAGE_RESIZE_ERROR`): a record is a file anyone could have written.
    public var word: String? {
        let code = error?.rawValue ?? ok?.rawValue ?? ""
        let isCode = (1...64).contains(code.utf8.count) && code.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
        return isCode ? code : nil
    }
}
