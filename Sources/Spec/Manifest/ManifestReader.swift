import Basics
import YAML

/// Decodes the manifest's top level; jobs and auth are read in their own files.
struct ManifestReader {
    static let topLevelKeys = ["version", "name", "endpoint", "auth", "policy", "results", "inputs_root", "upload", "templates", "defaults", "assemblies"]
    static let supportedVersion = 1

    let decoder: NodeDecoder
    let file: String
    let directory: String
    let requiresCredentials: Bool

    mutating func read(_ root: Node) -> Manifest? {
        // Managing Templates alone is a use of its own: 'assemblies' may then be left out.
        let required = root.pairs?.contains(where: { $0.keyText == "templates" }) == true ? ["version"] : ["version", "assemblies"]
        guard let fields = decoder.fields(root, what: "the manifest", allowed: Self.topLevelKeys, required: required) else {
            return nil
        }
        if let node = fields["version"], let version = decoder.int(node, what: "'version'"), version.value != Self.supportedVersion {
            decoder.report(.error(
                "manifest.unsupported-version", "manifest version \(version.value) is not supported", at: node.location,
                hint: "this pipeline reads 'version: \(Self.supportedVersion)'"))
        }
        let name = fields["name"].flatMap { decoder.nonEmptyString($0, what: "'name'")?.value } ?? defaultName
        let defaults = fields["defaults"].flatMap { JobDefaults.read($0, decoder: decoder) } ?? JobDefaults()
        let templates = fields["templates"].map { TemplateReader(decoder: decoder).read($0) } ?? []
        var jobs: [Job] = []
        if let node = fields["assemblies"], let entries = decoder.entries(node, what: "'assemblies'") {
            if entries.isEmpty, fields["templates"] == nil {
                decoder.report(.error(
                    "manifest.no-jobs", "'assemblies' has no jobs", at: node.location,
                    hint: "add a job: a name with 'inputs' and 'steps' or 'template_id'"))
            }
            let declared = Set(fields["templates"]?.pairs?.map(\.keyText) ?? [])
            jobs = entries.compactMap { entry in
                var reader = JobReader(decoder: decoder, defaults: defaults, templates: templates)
                reader.declaredTemplateNames = declared
                return reader.read(entry)
            }
        }
        let endpoint = fields["endpoint"].flatMap(readEndpoint)
        return Manifest(
            file: file,
            directory: directory,
            version: Self.supportedVersion,
            name: name,
            endpoint: endpoint,
            auth: fields["auth"].flatMap { AuthReader(decoder: decoder, requiresCredentials: requiresCredentials).read($0) }
                ?? AuthSettings(),
            policy: fields["policy"].flatMap { decoder.nonEmptyString($0, what: "'policy'") }.flatMap { policy in
                policy.value.contains("://") ? policy : decoder.insideProject(policy, what: "'policy'", flag: "--policy FILE")
            },
            results: fields["results"].flatMap { decoder.nonEmptyString($0, what: "'results'") }.flatMap { decoder.insideProject($0, what: "'results'", flag: "--results FILE") },
            inputsRoot: fields["inputs_root"].flatMap { decoder.nonEmptyString($0, what: "'inputs_root'") },
            upload: fields["upload"].map(readUpload) ?? UploadSettings(),
            templates: templates,
            jobs: jobs)
    }

    private var defaultName: String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        return base.split(separator: ".").first.map(String.init) ?? base
    }

    private func readUpload(_ node: Node) -> UploadSettings {
        guard let fields = decoder.fields(node, what: "'upload'", allowed: ["chunk_size"]) else { return UploadSettings() }
        var settings = UploadSettings()
        if let size = fields["chunk_size"].flatMap({ decoder.size($0, what: "'upload.chunk_size'") }) {
            if size.value.bytes < UploadSettings.smallestChunk {
                decoder.report(.error(
                    "manifest.chunk-size", "'upload.chunk_size' must be at least 256KiB, found \(size.value)", at: size.location,
                    hint: "smaller requests cost more than they save; 5MiB suits most proxies"))
            } else {
                settings.chunkSize = size
            }
        }
        return settings
    }

    private func readEndpoint(_ node: Node) -> Located<Endpoint>? {
        guard let text = decoder.nonEmptyString(node, what: "'endpoint'") else { return nil }
        if text.value == "local" { return Located(.local, at: text.location) }
        guard URLCheck.isHTTP(text.value) else {
            decoder.report(.error(
                "manifest.bad-endpoint", "'endpoint' must be 'local' or an http(s) URL, found '\(text.value)'",
                at: node.location, hint: "for example 'https://api2.transloadit.com' or 'local'"))
            return nil
        }
        return Located(.url(text.value), at: text.location)
    }
}

/// Light URL checks done without a network library.
enum URLCheck {
    /// `http://host...` or `https://host...` with a non-empty host and no spaces.
    static func isHTTP(_ text: String) -> Bool {
        guard !text.contains(where: \.isWhitespace) else { return false }
        for scheme in ["https://", "http://"] where text.lowercased().hasPrefix(scheme) {
            let rest = text.dropFirst(scheme.count)
            return !(rest.first == "/" || rest.isEmpty)
        }
        return false
    }
}
