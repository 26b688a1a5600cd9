import Basics

/// What a step's `use` names, as the engine reads it: a name, a list of names or `{name: ...}`,
/// or `{steps: [...]}`; without `use`, the uploads (`:original`), except for import robots,
/// which use nothing unless told.
public enum StepUses {
    /// The step names (and `:original`) `step` uses.
    public static func of(_ step: JSONValue) -> [String] {
        if step["use"] == nil, step["robot"]?.stringValue?.hasSuffix("/import") == true { return [] }
        return names(step["use"])
    }

    private static func names(_ value: JSONValue?) -> [String] {
        switch value {
        case .string(let name)?: return [name]
        case .array(let items)?: return items.flatMap { item in item.stringValue.map { [$0] } ?? names(item["name"]) }
        case .object(let object)?: return names(object["steps"])
        default: return [":original"]
        }
    }
}
