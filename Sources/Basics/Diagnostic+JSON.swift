extension Diagnostic {
    /// The diagnostic as a JSON object (`--json` output).
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id),
            "severity": .string(severity.rawValue),
            "message": .string(message),
        ]
        if let location {
            object["file"] = .string(location.file)
            object["line"] = .int(location.line)
            object["column"] = .int(location.column)
        }
        if let hint { object["hint"] = .string(hint) }
        if !notes.isEmpty {
            object["notes"] = .array(notes.map { note in
                var value: [String: JSONValue] = ["message": .string(note.message)]
                if let location = note.location {
                    value["file"] = .string(location.file)
                    value["line"] = .int(location.line)
                    value["column"] = .int(location.column)
                }
                return .object(value)
            })
        }
        return .object(object)
    }
}
