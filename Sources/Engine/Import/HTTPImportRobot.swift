import Basics
import Spec
import Foundation
import HTTPClient

/// `/http/import`: fetches the files at `url` (one URL, a list, or several split by
/// `url_delimiter`) into the Assembly. Each result carries `meta.import_url`. `force_name` names
/// them, else the server's `Content-Disposition`, else the URL's last path segment.
struct HTTPImportRobot: Sendable {
    /// The most URLs one step fetches.
    static let maxURLs = 100
    /// Headers that frame the request or its connection, which a step cannot set.
    static let reservedHeaders: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer", "expect",
        "proxy-authorization", "proxy-connection", "accept-encoding",
    ]

    let urls: [String]
    let forcedNames: [String]
    let headers: [(name: String, value: String)]
    let maxBytes: Int64?
    /// `ignore_errors` (or `import_on_errors`) includes "import": URLs that fail are skipped.
    let skipsFailures: Bool

    init(options: [String: JSONValue]) throws(RobotError) {
        let reader = StepOptions(options: options)
        let delimiter = try reader.string("url_delimiter", default: "|")
        var urls = try reader.strings("url") ?? []
        if options["url"]?.stringValue != nil { urls = urls.flatMap { $0.components(separatedBy: delimiter) } }
        urls = urls.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !urls.isEmpty else { throw RobotError(code: .invalidStepParameter, message: "'url' must give the URL to import") }
        guard urls.count <= Self.maxURLs else {
            throw RobotError(code: .invalidStepParameter, message: "'url' lists \(urls.count) URLs; one step imports at most \(Self.maxURLs)")
        }
        for url in urls {
            guard let parts = URLComponents(string: url), ["http", "https"].contains(parts.scheme?.lowercased() ?? ""), parts.host?.isEmpty == false else {
                throw RobotError(code: .invalidStepParameter, message: "'\(RemoteFetcher.shown(url))' is not an http(s) URL with a host")
            }
        }
        self.urls = urls
        forcedNames = try reader.strings("force_name") ?? []
        headers = try (reader.strings("headers") ?? []).map { (line: String) throws(RobotError) -> (name: String, value: String) in
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].range(of: #"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$"#, options: .regularExpression) != nil,
                  !parts[1].unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw RobotError(code: .invalidStepParameter, message: "each of 'headers' must be 'Name: value' on one line")
            }
            guard !Self.reservedHeaders.contains(parts[0].lowercased()) else {
                throw RobotError(code: .invalidStepParameter, message: "'headers' may not set '\(parts[0])': the engine sets it for each request")
            }
            return (parts[0], parts[1])
        }
        maxBytes = try reader.integer("max_file_size", in: 1...Int.max).map(Int64.init)
        let onErrors = try reader.strings("import_on_errors") ?? []
        skipsFailures = (RobotCatalog.ignoredPhases(options["ignore_errors"]) ?? []).contains("import") || onErrors.contains("import")
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
