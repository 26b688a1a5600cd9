import Basics
import YAML

/// A Template the manifest owns (`templates:`): named Assembly Instructions kept on the service,
/// created or updated by `pipeline run` before the Assemblies that use it.
public struct TemplateSpec: Sendable {
    /// The Template's name on the service.
    public var name: Located<String>
    /// Whether the service runs it only for signed requests.
    public var requireSignatureAuth: Bool
    /// What the service keeps: `steps`, and `allow_steps_override` when given.
    public var content: JSONValue
    /// The steps as written, with their locations.
    public var steps: [Step] = []
    /// Where every part of `content`'s steps was written (`["steps", name, option]`).
    public var locations = LocationIndex()

    /// Whether Assemblies may send `steps` next to it (the service's default: yes).
    public var allowsStepsOverride: Bool { content["allow_steps_override"]?.boolValue ?? true }

    /// A Template's name on the service: 5 to 40 lowercase latin letters and dashes.
    public static func isValidName(_ name: String) -> Bool {
        (5...40).contains(name.count) && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || $0 == "-" }
    }
}

/// Decodes `templates:`; each Template's steps get the checks of a job's steps.
struct TemplateReader {
    static let keys = ["require_signature_auth", "allow_steps_override", "steps"]

    let decoder: NodeDecoder

    func read(_ node: Node) -> [TemplateSpec] {
        guard let entries = decoder.entries(node, what: "'templates'") else { return [] }
        return entries.compactMap(readTemplate)
    }

    private func readTemplate(_ pair: Pair) -> TemplateSpec? {
        let name = Located(pair.keyText, at: pair.key.location)
        guard TemplateSpec.isValidName(name.value) else {
            decoder.report(.error(
                "manifest.bad-template-name", "Template name '\(name.value)' is not allowed", at: name.location,
                hint: "the service takes 5 to 40 lowercase letters and dashes, such as 'site-thumbs'"))
            return nil
        }
        guard let fields = decoder.fields(pair.value, what: "Template '\(name.value)'", allowed: Self.keys, required: ["steps"], owner: name.location),
              let stepsNode = fields["steps"] else { return nil }
        var index = LocationIndex()
        let steps = StepReader(decoder: decoder).read(stepsNode, owner: "Template '\(name.value)'", index: &index) ?? []
        var content: [String: JSONValue] = ["steps": .object(Dictionary(uniqueKeysWithValues: steps.map { ($0.name.value, $0.instructions) }))]
        if let allow = fields["allow_steps_override"].flatMap({ decoder.bool($0, what: "'allow_steps_override'") }) {
            content["allow_steps_override"] = .bool(allow)
        }
        let requireSignature = fields["require_signature_auth"].flatMap { decoder.bool($0, what: "'require_signature_auth'") } ?? false
        return TemplateSpec(name: name, requireSignatureAuth: requireSignature, content: .object(content), steps: steps, locations: index)
    }
}
