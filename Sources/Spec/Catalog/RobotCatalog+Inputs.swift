import Basics

extension RobotCatalog {
    /// The kinds of file (`ContentInspection.kind`: image, video, audio, document) each robot the
    /// local engine runs processes; other robots (files, imports, exports, and what only the
    /// service runs) take any file.
    static let inputKinds: [String: Set<String>] = [
        "/image/resize": ["image", "document"],
        "/image/optimize": ["image"],
        "/video/encode": ["video"],
        "/video/thumbs": ["video"],
        "/audio/encode": ["audio", "video"],
        "/audio/waveform": ["audio", "video"],
        "/document/thumbs": ["document"],
        "/meta/write": ["image", "video", "audio"],
    ]

    /// The robots that make one file of all their inputs (an archive): their result is no one source's.
    public static let bundling: Set<String> = ["/file/compress"]

    /// Whether `robot` processes a file of `kind` (nil: none known); true for robots that take any file.
    public static func takes(_ robot: String, kind: String?) -> Bool {
        guard let kinds = inputKinds[robot] else { return true }
        return kind.map(kinds.contains) ?? false
    }

    /// The kinds `robot` processes, for messages ("images or PDFs"); nil when it takes any file.
    public static func inputKindsText(_ robot: String) -> String? {
        let names = ["audio": "audio", "document": "PDFs", "image": "images", "video": "videos"]
        return inputKinds[robot].map { kinds in kinds.sorted().compactMap { names[$0] }.joined(separator: " or ") }
    }

    /// The phases `ignore_errors` may name.
    public static let errorPhases: Set<String> = ["meta", "execute", "import"]

    /// The processing phases whose failures a step's `ignore_errors` (`value`) skips: all of them
    /// for `true`, none when absent or false, the ones a list (or one name) names; nil for anything else.
    public static func ignoredPhases(_ value: JSONValue?) -> Set<String>? {
        guard let value else { return [] }
        if let flag = value.boolValue { return flag ? errorPhases : [] }
        if let one = value.stringValue { return errorPhases.contains(one) ? [one] : nil }
        guard let items = value.arrayValue else { return nil }
        let names = items.compactMap(\.stringValue)
        return names.count == items.count && Set(names).isSubset(of: errorPhases) ? Set(names) : nil
    }
}
