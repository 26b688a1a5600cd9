import Basics
import YAML

/// Settings under `defaults:` that every job inherits unless it sets its own.
struct JobDefaults {
    static let keys = ["batch", "fields", "notify_url", "allow_empty", "allow_outside"]

    var batch: Job.Batch = .count(1)
    var fields: [String: JSONValue] = [:]
    var fieldLocations = LocationIndex()
    var notifyURL: Located<String>?
    var allowEmpty = false
    var allowOutside = false

    static func read(_ node: Node, decoder: NodeDecoder) -> JobDefaults? {
        guard let fields = decoder.fields(node, what: "'defaults'", allowed: keys) else { return nil }
        var defaults = JobDefaults()
        if let node = fields["batch"], let batch = JobReader.readBatch(node, decoder: decoder) { defaults.batch = batch }
        if let node = fields["fields"], let value = JobReader.readFields(node, decoder: decoder, index: &defaults.fieldLocations) {
            defaults.fields = value
        }
        defaults.notifyURL = fields["notify_url"].flatMap { JobReader.readNotifyURL($0, decoder: decoder) }
        if let node = fields["allow_empty"], let value = decoder.bool(node, what: "'allow_empty'") { defaults.allowEmpty = value }
        if let node = fields["allow_outside"], let value = decoder.bool(node, what: "'allow_outside'") { defaults.allowOutside = value }
        return defaults
    }
}
