import Foundation
import HTTPClient
import Basics

/// Fetches an Assembly's result files into `DIR/<step>/<name>`, several at once, renaming on
/// collisions and checking each file's size.
struct Downloader: Sendable {
    let http: HTTPClient

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func download(_ entry: RunResults.Entry, into folder: String) async throws {
        var targets: [(URLString: String, path: String, size: Int64)] = []
        var taken: Set<String> = []
        for (step, files) in entry.results.sorted(by: { $0.key < $1.key }) {
            let directory = folder + "/" + FileNames.safeComponent(step)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for file in files {
                guard let url = file.url else { continue }
                var path = directory + "/" + FileNames.safeComponent(file.name)
                var counter = 2
                while taken.contains(path) {
                    let name = FileNames.safeComponent(file.name) as NSString
                    let ext = name.pathExtension
                    path = directory + "/" + name.deletingPathExtension + "-\(counter)" + (ext.isEmpty ? "" : "." + ext)
                    counter += 1
                }
                taken.insert(path)
                targets.append((url, path, file.size))
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for target in targets {
                group.addTask { try await fetch(target.URLString, to: target.path, size: target.size) }
            }
            try await group.waitForAll()
        }
    }

    private func fetch(_ url: String, to path: String, size: Int64) async throws {
        let data: Data
        if url.hasPrefix("file://"), let local = URL(string: url)?.path {
            data = try Data(contentsOf: URL(fileURLWithPath: local))
        } else {
            let response = try await http.send(HTTPRequest(method: "GET", url: url, maxResponseBytes: 4 << 30))
            guard response.status == 200 else { throw Failure(description: "GET \(url): HTTP \(response.status)") }
            data = response.body
        }
        guard Int64(data.count) == size else {
            throw Failure(description: "\(url): got \(data.count) bytes, the status said \(size)")
        }
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
