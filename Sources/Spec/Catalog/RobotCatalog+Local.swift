extension RobotCatalog {
    /// Step keys every robot takes: what the step is and where its files come from, not options.
    public static let structuralKeys: Set<String> = ["robot", "use", "result"]

    /// The parameters the local engine implements, per robot it runs: anything else in a step
    /// for `endpoint: local` is refused at validate time (and by the engine), never silently
    /// ignored. A test ties this record to the options the engine's code reads.
    public static let localParameters: [String: Set<String>] = {
        let watermark: Set<String> = [
            "watermark_url", "watermark_position", "watermark_x_offset", "watermark_y_offset", "watermark_size",
            "watermark_resize_strategy", "watermark_opacity",
        ]
        var parameters: [String: Set<String>] = [
            "/upload/handle": [],
            "/image/resize": Set<String>([
                "width", "height", "resize_strategy", "format", "quality", "background", "zoom", "gravity", "crop",
                "trim_whitespace", "strip", "progressive", "rotation",
            ]).union(watermark),
            "/image/optimize": ["progressive", "preserve_meta_data"],
            "/file/filter": ["accepts", "declines", "condition_type", "error_on_decline"],
            "/file/hash": ["algorithm"],
            "/file/compress": ["format", "gzip", "archive_name", "compression_level", "file_layout", "password"],
            "/file/decompress": ["password"],
            "/document/thumbs": ["page", "width", "height", "resize_strategy", "format"],
            "/video/encode": ["preset", "width", "height", "resize_strategy", "format", "ffmpeg"],
            "/video/thumbs": ["count", "offsets", "width", "height", "resize_strategy", "format"],
            "/audio/encode": ["preset", "bitrate", "sample_rate"],
            "/audio/waveform": ["width", "height", "format", "outer_color"],
            "/http/import": ["url", "url_delimiter", "headers", "force_name", "ignore_errors", "import_on_errors", "max_file_size"],
            "/meta/write": ["data_to_write"],
        ]
        for robot in localExports { parameters[robot] = ["credentials", "path"] }
        return parameters
    }()

    /// Keys the local engine implements for every robot: `ignore_errors` (a file a robot fails
    /// on is left out and named, as the service does).
    public static let everyLocalRobotTakes: Set<String> = ["ignore_errors"]

    /// Whether the local engine implements `parameter` of `robot`; nil when it does not run the robot.
    public static func implementsLocally(robot: String, parameter: String) -> Bool? {
        localParameters[robot].map { $0.contains(parameter) || structuralKeys.contains(parameter) || everyLocalRobotTakes.contains(parameter) }
    }

    /// The keys of a local step that the local engine does not implement, in order.
    public static func unimplementedLocally(robot: String, keys: [String]) -> [String] {
        keys.filter { implementsLocally(robot: robot, parameter: $0) == false }
    }
}
