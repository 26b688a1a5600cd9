import Foundation

/// A tus server a test uploads to, with a way to read back what it stored.
public protocol TusTestServer: AnyObject, Sendable {
    /// The creation endpoint.
    var endpoint: String { get }
    /// The port it listens on.
    var port: Int { get }
    /// The bytes stored for the upload at `url`.
    func storedBytes(of url: String) throws -> Data
    /// The size of the largest stored upload (to watch an upload arrive).
    func largestStoredSize() -> Int
    /// How many uploads were created (each has its data file).
    func createdUploads() -> Int
    /// Stops the server and removes its files.
    func stop()
}

extension TusTestServer {
    /// A fault-injecting proxy in front of this server (rules such as `PATCH:1:drop=1048576`);
    /// returns the proxy and the creation endpoint through it.
    public func faulty(_ rules: [String]) throws -> (proxy: ServerProcess, endpoint: String) {
        let proxy = try ServerProcess("/usr/bin/env", ["python3", PackageRoot.path + "/Tests/APIClientsTests/Tus/Fixtures/fault_proxy.py", String(port)] + rules)
        let path = URL(string: endpoint)?.path ?? "/"
        return (proxy, proxy.url(path.hasSuffix("/") ? path : path + "/"))
    }
}

/// The names in `directory` (none when it cannot be read).
public func fileNames(in directory: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
}

/// Sizes of the files in `directory` whose names pass `include`.
public func largestFile(in directory: String, where include: (String) -> Bool) -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter(include).compactMap { name in
        (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int) ?? nil
    }.max() ?? 0
}
