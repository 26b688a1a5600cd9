import Basics
import Client
import Engine
import Foundation
import HTTPServer

/// `pipeline serve`'s command line, parsed once.
struct ServeArguments: CommandArguments {
    /// `--host`.
    var host: String
    /// `--port`.
    var port: UInt16
    /// `--data-dir`.
    var dataDirectory: String
    /// `--quiet`: no request log.
    var quiet: Bool
    /// `--auth-key`: require signatures for this key.
    var authKey: String?
    /// The variable holding the Auth Secret (`--secret-env`).
    var secretVariable: String
    /// `--policy`.
    var policyPath: String?
    /// `--rate-limit N/DURATION`.
    var rateLimit: (count: Int, window: TimeInterval)?
    /// `--max-media-duration`, `--max-image-pixels`, `--max-import-size`, `--allow-loopback-import`.
    var robotLimits: RobotLimits
    /// `--public-url` and `--trust-proxy`.
    var origin: PublicOrigin
    /// `--trailers`.
    var trailersBehindProxy: Bool
    /// Not `--no-handoff`.
    var handoff: Bool
    /// `--tls-cert` and `--tls-key`.
    var tls: TLSFilePaths
    /// `--credentials FILE`: named credentials for storage steps.
    var credentialsFile: String?
    /// `--retention` and `--record-retention`; nil for `--retention off`.
    var retention: EngineRetention?
    /// `--state postgres://…` and `--store s3://…`: shared with other engines (both, or neither).
    var shared: (state: String, store: String)?
    /// `--lease`: how long a claim on a run or an upload holds unrenewed.
    var lease: Duration
    /// `--move-from DIR`: copy that data folder's state into `shared`, then exit.
    var moveFrom: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let command = ServeCommand.spec.name
        if let text = arguments.value("rate-limit") {
            let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
            guard parts.count == 2, let count = Int(parts[0]), count > 0, let window = DurationText.parse(parts[1]) else {
                throw UsageError("--rate-limit needs N/DURATION such as 250/1m, not '\(text)'", command: command)
            }
            rateLimit = (count, TimeInterval(window.components.seconds))
        } else {
            rateLimit = nil
        }
        if let url = arguments.value("public-url"), PublicOrigin.normalize(url) == nil {
            throw UsageError("--public-url needs an http(s) URL without a path, such as https://engine.example.com, not '\(url)'", command: command)
        }
        origin = PublicOrigin(publicURL: arguments.value("public-url"), trustProxy: arguments.flag("trust-proxy"))
        authKey = arguments.value("auth-key")
        secretVariable = arguments.secretVariable
        policyPath = arguments.value("policy")
        host = arguments.value("host") ?? "127.0.0.1"
        guard HTTPServer.canListen(on: host) else {
            throw UsageError("--host needs an IPv4 or IPv6 address, such as 127.0.0.1 or ::1, not '\(host.printable)'", command: command)
        }
        port = try arguments.port(default: 8787)
        dataDirectory = arguments.value("data-dir") ?? Workspace.here.engineDirectory
        quiet = arguments.flag("quiet")
        let duration = try arguments.duration("max-media-duration", default: .seconds(4 * 3600))
        let pixels = arguments.value("max-image-pixels")
        guard pixels.map({ Int($0).map { $0 > 0 } ?? false }) ?? true else {
            throw UsageError("--max-image-pixels needs a whole number above 0, not '\(pixels ?? "")'", command: command)
        }
        robotLimits = RobotLimits(
            mediaDuration: Double(duration.components.seconds), imagePixels: pixels.flatMap { Int($0) } ?? 100_000_000,
            importBytes: try arguments.size("max-import-size", minimum: 1) ?? 10 << 30, importsFromLoopback: arguments.flag("allow-loopback-import"))
        trailersBehindProxy = arguments.flag("trailers")
        handoff = !arguments.flag("no-handoff")
        tls = TLSFilePaths(arguments)
        credentialsFile = arguments.value("credentials")
        let files = try arguments.durationOrOff("retention", default: .seconds(24 * 3600))
        let records = try arguments.durationOrOff("record-retention", default: .seconds(30 * 24 * 3600))
        retention = files.map { EngineRetention(files: $0, records: records) }
        switch (arguments.value("state"), arguments.value("store")) {
        case (nil, nil): shared = nil
        case (let state?, let store?): shared = (state, store)
        case (_?, nil), (nil, _?):
            throw UsageError("--state and --store go together: engines that share their state share their files too", command: command)
        }
        lease = try arguments.duration("lease", default: .seconds(10))
        moveFrom = arguments.value("move-from")
        if moveFrom != nil, shared == nil {
            throw UsageError("--move-from copies a data folder into shared state and files: give --state and --store too", command: command)
        }
    }
}
