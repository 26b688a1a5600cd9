import Basics

extension RobotCatalog {
    /// The values the local engine runs for each enumerated option of its robots: the one list
    /// `validate` checks a manifest against and the engine's robots check a step against.
    public static let localValues: [String: [String: [String]]] = {
        let strategies = ["crop", "fillcrop", "fit", "min_fit", "pad", "stretch"]
        let gravity = ["bottom", "bottom-left", "bottom-right", "center", "left", "right", "top", "top-left", "top-right"]
        let hls = ["270p", "360p", "480p", "540p", "576p", "720p", "1080p"].flatMap { ["hls-" + $0, "hls/" + $0] }
        return [
            "/image/resize": [
                "format": ["avif", "gif", "jpeg", "jpg", "png", "tiff", "webp"],
                "resize_strategy": strategies,
                "gravity": gravity,
                "watermark_position": gravity,
                "watermark_resize_strategy": ["fit", "stretch"],
            ],
            "/video/encode": [
                "preset": ["android", "empty", "ipad", "ipad-high", "iphone", "iphone-high", "web/mp4/1080p", "web/mp4/720p", "web/webm/720p", "webm"] + hls,
                "format": ["gif", "mp4"],
                "resize_strategy": strategies,
            ],
            "/video/thumbs": ["format": ["jpeg", "jpg", "png"], "resize_strategy": strategies],
            "/audio/encode": ["preset": ["aac", "flac", "mp3", "ogg", "opus"]],
            "/audio/waveform": ["format": ["image", "json"]],
            "/document/thumbs": ["format": ["gif", "jpeg", "jpg", "png"], "resize_strategy": strategies],
            "/file/hash": ["algorithm": ["md5", "sha1", "sha256", "sha384", "sha512"]],
            "/file/compress": ["format": ["tar", "zip"], "file_layout": ["advanced", "relative-path", "simple"]],
            "/file/filter": ["condition_type": ["and", "or"]],
        ]
    }()

    /// Why `value` of `robot`'s `option` does not run on the local engine, with a did-you-mean
    /// hint; nil when it does, when the option is not enumerated, or the value is not text.
    public static func localValueProblem(robot: String, option: String, value: JSONValue) -> (message: String, hint: String)? {
        guard let allowed = localValues[robot]?[option], let text = value.stringValue, !text.contains("${") else { return nil }
        let compared = option == "format" ? text.lowercased() : text
        guard !allowed.contains(compared) else { return nil }
        let suggestion = Suggestions.closest(to: compared, in: allowed).map { "did you mean '\($0)'? " } ?? ""
        return ("the local engine's \(robot) does not run \(option) '\(TerminalText.printable(text))'",
                suggestion + "it runs " + allowed.joined(separator: ", "))
    }
}
