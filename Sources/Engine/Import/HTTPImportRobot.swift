import Basics
import Spec
import Foundation
import HTTPClient

/// `/http/import`: fetches the files at `url` (one URL, a list, or several split by
/// `url_delimiter`) into the Assembly. Each result carries `meta.import_url`. `force_name` names
/// them, else the server's `Content-Disposition`, else the URL's last path segment.
struct HTTPImportRobot: Sendable {
    let urls: [String]
    let forcedNames: [String]
    let headers: [(name: String, value: String)]
    let maxBytes: Int64?
    /// `ignore_errors` (or `import_on_errors`) includes "import": URLs that fail are skipped.
    let skipsFailures: Bool

    init(_ parameters: HTTPImport.Parameters) throws(RobotError) {
        for url in parameters.urls {
            guard let parts = URLComponents(string: url), ["http", "https"].contains(parts.scheme?.lowercased() ?? ""), parts.host?.isEmpty == false else {
                throw RobotError(code: .invalidStepParameter, message: "'\(RemoteFetcher.shown(url))' is not an http(s) URL with a host")
            }
        }
        urls = parameters.urls
        forcedNames = parameters.forcedNames
        headers = parameters.headers
        maxBytes = parameters.maxBytes
        skipsFailures = parameters.skipsFailures
    }

    /// Fetches every URL (as many at once as there are cores); the files in the order given.
    func importFiles(context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        let fetcher = RemoteFetcher(limits: context.limits, maxBytes: maxBytes, headers: headers)
        var files: [AssemblyFile] = []
        for outcome in Robots.outcomes(Array(urls.indices), { index throws(RobotError) in try fetch(index, with: fetcher, context: context) }) {
            switch outcome {
            case .success(let file): files.append(file)
            case .failure(let error) where error.code == RobotError.canceled.code || !skipsFailures: throw error
            case .failure(let error): context.ignore(error, nil)
            }
        }
        return files
    }

    private func fetch(_ index: Int, with fetcher: RemoteFetcher, context: RobotContext) throws(RobotError) -> AssemblyFile {
        let url = urls[index]
        // URLs not started when the Assembly is canceled are never asked for.
        guard !context.isCanceled() else { throw RobotError.canceled }
        // Fetched under a fixed name, renamed once the response names the file.
        let slot = try ResultSlot(name: "import", in: context.folder)
        do throws(RobotError) {
            let response = try fetcher.fetch(url, to: slot.path, isCanceled: context.isCanceled)
            let forced = forcedNames.isEmpty ? nil : forcedNames[min(index, forcedNames.count - 1)]
            let name = forced ?? Self.name(disposition: response.headers["Content-Disposition"]) ?? Self.name(url: url)
            let named = try slot.renamed(to: name)
            let type = response.headers["Content-Type"].map { String($0.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces).lowercased() }
            return named.imported(mime: type, meta: ["import_url": .string(RemoteFetcher.shown(url, keepQuery: true))])
        } catch {
            slot.remove()
            throw error
        }
    }

    /// The file name a `Content-Disposition` gives (`filename*=UTF-8''…` preferred).
    static func name(disposition: String?) -> String? {
        guard let disposition else { return nil }
        var plain: String?
        for parameter in disposition.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0].lowercased() {
            case "filename*":
                let parts = pair[1].split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3, parts[0].lowercased() == "utf-8", let decoded = String(parts[2]).removingPercentEncoding, !decoded.isEmpty {
                    return decoded
                }
            case "filename":
                let value = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
                if !value.isEmpty { plain = value }
            default: continue
            }
        }
        return plain
    }

    /// The URL's last path segment, decoded; "file" when it has none.
    static func name(url: String) -> String {
        let path = URLComponents(string: url)?.path ?? ""
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        return (last.removingPercentEncoding ?? last).isEmpty ? "file" : (last.removingPercentEncoding ?? last)
    }
}

extension HTTPImport: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) throws(RobotError) -> RobotWork {
        let importer = try HTTPImportRobot(parameters)
        return .allFiles { _, context throws(RobotError) in try importer.importFiles(context: context) }
    }
}
