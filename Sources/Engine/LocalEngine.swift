import Foundation
import HTTPServer

/// The local engine behind `pipeline serve`: a tus server (and, as it grows, the Assembly API
/// and local robots) over one HTTP server, with its state in a data folder.
public final class LocalEngine: Sendable {
    /// Settings for the engine.
    public struct Configuration: Sendable {
        /// Where uploads, Assemblies and results are kept.
        public var dataDirectory: String
        /// The largest upload accepted.
        public var maxUploadSize: Int64
        /// How long an unfinished upload is kept.
        public var uploadLifetime: TimeInterval

        /// Creates a configuration.
        public init(dataDirectory: String, maxUploadSize: Int64 = 16 << 30, uploadLifetime: TimeInterval = 24 * 3600) {
            self.dataDirectory = dataDirectory
            self.maxUploadSize = maxUploadSize
            self.uploadLifetime = uploadLifetime
        }
    }

    /// The tus creation path.
    public static let tusPath = "/resumable/files/"

    private let server: HTTPServer

    /// The port the engine listens on.
    public var port: UInt16 { server.port }

    /// Starts the engine on `server` settings; `log` receives one line per request.
    public init(_ configuration: Configuration, server settings: HTTPServer.Configuration, log: (@Sendable (String) -> Void)? = nil) throws {
        let uploads = try UploadStore(directory: configuration.dataDirectory + "/uploads")
        let tus = TusEndpoint(
            store: uploads, basePath: Self.tusPath, maxSize: configuration.maxUploadSize, lifetime: configuration.uploadLifetime,
            onFinished: { _ in })
        server = try HTTPServer(settings, handler: EngineHandler(tus: tus), log: log)
    }

    /// Stops serving.
    public func stop() { server.stop() }
}
