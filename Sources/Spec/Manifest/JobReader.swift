import Basics
import YAML

/// Decodes one job under `assemblies:`.
struct JobReader {
    static let keys = [
        "inputs", "batch", "steps", "template", "template_id", "fields", "notify_url", "allow_empty", "allow_outside", "download", "smart_cdn",
    ]

    let decoder: NodeDecoder
    let defaults: JobDefaults
    let templates: [TemplateSpec]
    /// Every name under `templates:`, the refused ones too.
    var declaredTemplateNames: Set<String> = []

    func read(_ pair: Pair) -> Job? {
        let name = Located(pair.keyText, at: pair.key.location)
        guard Self.isValidName(name.value) else {
            decoder.report(.error(
                "manifest.bad-name", "job name '\(name.value)' is not allowed", at: name.location,
                hint: "use letters, digits, '-', '_' and '.', starting with a letter or digit"))
            return nil
        }
        let what = "job '\(name.value)'"
        guard let fields = decoder.fields(pair.value, what: what, allowed: Self.keys, required: ["inputs"], owner: name.location) else {
            return nil
        }
        var locations = defaults.fieldLocations
        let inputs = fields["inputs"].flatMap { readInputs($0, what: what) } ?? []
        let templateID = fields["template_id"].flatMap(readTemplateID)
        let template = fields["template"].flatMap { readTemplate($0, what: what, hasSteps: fields["steps"] != nil, hasID: templateID != nil) }
        let steps = fields["steps"].flatMap {
            StepReader(decoder: decoder).read(
                $0, owner: what, index: &locations, inherited: template?.steps.map(\.name.value) ?? [], othersUnknown: templateID != nil)
        } ?? []
        if fields["steps"] == nil, templateID == nil, fields["template"] == nil {
            decoder.report(.error(
                "manifest.no-steps", "\(what) has neither 'steps' nor a Template", at: name.location,
                hint: "add 'steps:' with at least one step, 'template:' naming a Template of this manifest, or 'template_id:'"))
        }
        var jobFields = defaults.fields
        if let node = fields["fields"], let value = Self.readFields(node, decoder: decoder, index: &locations) {
            jobFields.merge(value) { _, job in job }
        }
        if let templateID { locations.record(["template_id"], key: fields.keyNode("template_id")?.location, value: templateID.location) }
        let notifyURL = fields["notify_url"].flatMap { Self.readNotifyURL($0, decoder: decoder) } ?? defaults.notifyURL
        if let notifyURL { locations.record(["notify_url"], key: nil, value: notifyURL.location) }
        let smartCDN = fields["smart_cdn"].flatMap {
            SmartCDNSpec.read($0, key: fields.keyNode("smart_cdn")?.location, what: what, decoder: decoder, index: &locations)
        }
        return Job(
            name: name,
            inputs: inputs,
            batch: fields["batch"].flatMap { Self.readBatch($0, decoder: decoder) } ?? defaults.batch,
            steps: steps,
            templateID: templateID,
            template: template,
            fields: jobFields,
            notifyURL: notifyURL,
            allowEmpty: fields["allow_empty"].flatMap { decoder.bool($0, what: "'allow_empty'") } ?? defaults.allowEmpty,
            allowOutside: fields["allow_outside"].flatMap { decoder.bool($0, what: "'allow_outside'") } ?? defaults.allowOutside,
            download: fields["download"].flatMap { decoder.nonEmptyString($0, what: "'download'") }.flatMap { decoder.insideProject($0, what: "'download'", flag: "--download DIR") },
            smartCDN: smartCDN,
            locations: locations)
    }

    /// `template: NAME`: one of the manifest's Templates, not combined with `template_id`, and
    /// with `steps` only when the Template allows overriding them.
    private func readTemplate(_ node: Node, what: String, hasSteps: Bool, hasID: Bool) -> TemplateSpec? {
        guard let name = decoder.nonEmptyString(node, what: "'template'") else { return nil }
        guard let template = templates.first(where: { $0.name.value == name.value }) else {
            // A Template declared with a name that was refused has its own error already.
            if declaredTemplateNames.contains(name.value) { return nil }
            decoder.report(.error(
                "manifest.unknown-template", "\(what) names Template '\(name.value)', which 'templates:' does not define", at: name.location,
                hint: Suggestions.closest(to: name.value, in: templates.map(\.name.value)).map { "did you mean '\($0)'?" }
                    ?? "define it under 'templates:', or use 'template_id:' for a Template this manifest does not manage"))
            return nil
        }
        if hasID {
            decoder.report(.error("manifest.template-and-id", "\(what) has both 'template' and 'template_id'", at: name.location,
                                  hint: "keep one: 'template' for a Template of this manifest, 'template_id' for another"))
        }
        if hasSteps, !template.allowsStepsOverride {
            decoder.report(.error(
                "manifest.template-denies-steps", "\(what) has 'steps', but Template '\(name.value)' says allow_steps_override: false",
                at: name.location, hint: "move the steps into the Template, or allow overriding them"))
        }
        return template
    }

    private func readTemplateID(_ node: Node) -> Located<String>? {
        switch decoder.resolve(node) {
        case .int?:
            return decoder.string(node, what: "'template_id'", acceptingNumbers: true)
        case .string(let text)? where !text.isEmpty:
            return Located(text, at: node.location)
        case nil where node.scalar != nil:
            return nil
        default:
            decoder.typeMismatch(node, expected: "a template id (a non-empty string)", what: "'template_id'")
            return nil
        }
    }

    private func readInputs(_ node: Node, what: String) -> [Located<String>]? {
        guard let inputs = decoder.stringList(node, what: "'inputs' of \(what)") else { return nil }
        if inputs.isEmpty {
            decoder.report(.error(
                "manifest.no-inputs", "'inputs' of \(what) is empty", at: node.location,
                hint: "list at least one glob pattern, such as 'images/**/*.jpg'"))
        }
        for input in inputs where input.value.isEmpty || input.value == "!" {
            decoder.report(.error("manifest.empty-value", "an input pattern must not be empty", at: input.location))
        }
        return inputs
    }

    static func readBatch(_ node: Node, decoder: NodeDecoder) -> Job.Batch? {
        let expected = "a positive integer or 'all'"
        guard node.scalar != nil else {
            decoder.typeMismatch(node, expected: expected, what: "'batch'")
            return nil
        }
        switch decoder.resolve(node) {
        case nil:
            return nil
        case .string("all")?:
            return .all
        case .int(let count)? where count >= 1:
            return .count(count)
        case .int(let count)?:
            decoder.report(.error(
                "manifest.out-of-range", "'batch' must be at least 1, found \(count)", at: node.location,
                hint: "use 1 for one Assembly per file, or 'all' for a single Assembly"))
            return nil
        case .double(let number)?:
            // Beyond Int's range YAML's integer is read as a number, as is any fraction.
            let written = node.scalar?.text ?? "\(number)"
            let message = number.rounded() != number || number < 1 ? "'batch' must be a whole number of at least 1, found \(written)"
                : number >= 9.2e18 ? "'batch' \(written) is too large" : "'batch' must be written as a whole number (\(Int(number))), found \(written)"
            decoder.report(.error("manifest.out-of-range", message, at: node.location, hint: "use 'all' for a single Assembly, or a count such as 100"))
            return nil
        default:
            decoder.typeMismatch(node, expected: expected, what: "'batch'")
            return nil
        }
    }

    static func readFields(_ node: Node, decoder: NodeDecoder, index: inout LocationIndex) -> [String: JSONValue]? {
        guard node.pairs != nil else {
            decoder.typeMismatch(node, expected: "a mapping of field names to values", what: "'fields'")
            return nil
        }
        return decoder.json(node, path: ["fields"], index: &index)?.objectValue
    }

    static func readNotifyURL(_ node: Node, decoder: NodeDecoder) -> Located<String>? {
        guard let url = decoder.nonEmptyString(node, what: "'notify_url'") else { return nil }
        guard URLCheck.isHTTP(url.value) else {
            decoder.report(.error(
                "manifest.bad-url", "'notify_url' must be an http(s) URL, found '\(url.value)'", at: node.location))
            return nil
        }
        return url
    }

    /// Letters, digits, `-`, `_` and `.`, starting with a letter or digit.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic || ("0"..."9").contains(first) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) }
    }
}
