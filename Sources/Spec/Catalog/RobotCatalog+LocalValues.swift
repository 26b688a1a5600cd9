import Basics

extension RobotCatalog {
    /// The values the local engine runs for each enumerated option of its robots (from their
    /// declarations): the one list `validate` checks a manifest against and the engine's robots
    /// check a step against.
    public static let localValues: [String: [String: [String]]] = RobotRegistry.byName.compactMapValues { declaration in
        let values = declaration.localValues
        return values.isEmpty ? nil : values
    }

    /// Why `value` of `robot`'s `option` does not run on the local engine, with a did-you-mean
    /// hint; nil when it does, when the option is not enumerated, or the value is not text.
    public static func localValueProblem(robot: String, option: String, value: JSONValue) -> (message: String, hint: String)? {
        guard let allowed = localValues[robot]?[option], let text = value.stringValue else { return nil }
        return valueProblem(robot: robot, option: option, text: text, allowed: allowed)
    }

    /// Why `text` is not among the `allowed` values of `robot`'s `option`, with a did-you-mean
    /// hint; nil when it is, or when it holds a field known only at run time.
    static func valueProblem(robot: String, option: String, text: String, allowed: [String]) -> (message: String, hint: String)? {
        guard !text.contains("${") else { return nil }
        let compared = option == "format" ? text.lowercased() : text
        guard !allowed.contains(compared) else { return nil }
        let suggestion = Suggestions.closest(to: compared, in: allowed).map { "did you mean '\($0)'? " } ?? ""
        return ("the local engine's \(robot) does not run \(option) '\(TerminalText.printable(text))'",
                suggestion + "it runs " + allowed.joined(separator: ", "))
    }
}
