import Basics
import Wire
import YAML

/// A job's `smart_cdn:`: the signed Smart CDN URL of each source file that the results name
/// beside it (`smart_cdn_url`), the input being `input_prefix` and the file's path.
public struct SmartCDNSpec: Sendable, Equatable {
    /// The workspace (the CDN host's first label).
    public var workspace: String
    /// The Smart CDN Template's name.
    public var template: String
    /// Put before each source's path (relative to the manifest's folder) to name its input.
    public var inputPrefix: String
    /// URL parameters, in the order written.
    public var parameters: [Parameter]
    /// How long each URL works from the run that wrote it.
    public var expiresIn: Duration

    /// One URL parameter.
    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    static let keys = ["workspace", "template", "input_prefix", "params", "expires_in"]
    /// A day: results files are read by sites built from them, not fetched at once.
    public static let defaultExpiresIn: Duration = .seconds(24 * 3600)

    /// The input path of `source`.
    public func input(for source: String) -> String { inputPrefix + source }

    /// Reads `smart_cdn:` of `what`, recording where each part was written under `["smart_cdn"]`
    /// in `index` (for the policy's findings); nil (reported) when it is not one.
    static func read(_ node: Node, key: SourceLocation?, what: String, decoder: NodeDecoder, index: inout LocationIndex) -> SmartCDNSpec? {
        let owner = "'smart_cdn' of \(what)"
        index.record(["smart_cdn"], key: key, value: node.location)
        if let pairs = node.pairs {
            for pair in pairs { index.record(["smart_cdn", pair.keyText], key: pair.key.location, value: pair.value.location) }
        }
        guard let fields = decoder.fields(node, what: owner, allowed: keys, required: ["workspace", "template"]),
              let workspace = fields["workspace"].flatMap({ decoder.nonEmptyString($0, what: "'smart_cdn.workspace'") }),
              let template = fields["template"].flatMap({ decoder.nonEmptyString($0, what: "'smart_cdn.template'") }) else { return nil }
        guard SmartCDNURL.isValidWorkspace(workspace.value) else {
            decoder.report(.error("manifest.smart-cdn-workspace", "'smart_cdn.workspace' '\(workspace.value)' is not a host name's first label", at: workspace.location,
                                  hint: "write the workspace as in https://WORKSPACE.tlcdn.com: letters, digits and '-'"))
            return nil
        }
        var parameters: [Parameter] = []
        if let node = fields["params"], let entries = decoder.entries(node, what: "'smart_cdn.params'") {
            for entry in entries {
                guard !["auth_key", "exp", "sig"].contains(entry.keyText) else {
                    decoder.report(.error("manifest.smart-cdn-param", "'smart_cdn.params' must not set '\(entry.keyText)': the signature sets it", at: entry.key.location))
                    continue
                }
                index.record(["smart_cdn", "params", entry.keyText], key: entry.key.location, value: entry.value.location)
                if let value = decoder.string(entry.value, what: "'smart_cdn.params.\(entry.keyText)'", acceptingNumbers: true) {
                    parameters.append(Parameter(name: entry.keyText, value: value.value))
                }
            }
        }
        return SmartCDNSpec(
            workspace: workspace.value, template: template.value, inputPrefix: fields["input_prefix"].flatMap { decoder.string($0, what: "'smart_cdn.input_prefix'")?.value } ?? "",
            parameters: parameters, expiresIn: fields["expires_in"].flatMap { decoder.duration($0, what: "'smart_cdn.expires_in'")?.value } ?? defaultExpiresIn)
    }
}
