import Foundation

/// The environment a started program gets. A program that reads files someone else made
/// (ffmpeg, exiftool, optipng, ffprobe, and the rest) gets only what it needs to run, never the
/// Auth Secret, a token or anything else the tool was given.
public enum ChildEnvironment: Sendable {
    /// This process's whole environment: for the user's own commands (a signing command, git).
    case inherited
    /// `PATH`, `HOME`, the locale, `TMPDIR`, `TZ` and fontconfig's settings only.
    case tools

    /// The names `tools` passes on, besides every `LC_*`.
    public static let toolNames: Set<String> = ["PATH", "HOME", "TMPDIR", "TZ", "LANG", "LANGUAGE", "FONTCONFIG_FILE", "FONTCONFIG_PATH"]

    /// `environment` cut down to what a tool may see.
    public static func forTools(_ environment: [String: String]) -> [String: String] {
        environment.filter { toolNames.contains($0.key) || $0.key.hasPrefix("LC_") }
    }

    /// The variables to start with; nil for this process's own.
    var variables: [String: String]? {
        switch self {
        case .inherited: nil
        case .tools: Self.forTools(ProcessInfo.processInfo.environment)
        }
    }
}
