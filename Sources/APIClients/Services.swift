import Foundation
import HTTPClient
import Wire

/// What a run asks of the Assembly API. `AssemblyClient` is the real one; tests drive the
/// executor's logic through a scripted one, without sockets.
public protocol AssemblyService: Sendable {
    /// Creates the Assembly `id` with signed params, announcing `expectedUploads` tus uploads.
    func create(id: String, params: String, signature: String?, expectedUploads: Int) async throws(AssemblyClient.Failure) -> AssemblyState
    /// The status of `assembly`; `wait` asks a server that offered it to hold the answer until
    /// the Assembly moves on, up to that many seconds.
    func status(_ assembly: AssemblyReference, wait: Int?) async throws(AssemblyClient.Failure) -> AssemblyState
    /// Cancels `assembly`.
    func cancel(_ assembly: AssemblyReference) async throws(AssemblyClient.Failure) -> AssemblyState
}

extension AssemblyService {
    /// The status of `assembly`, answered at once.
    public func status(_ assembly: AssemblyReference) async throws(AssemblyClient.Failure) -> AssemblyState {
        try await status(assembly, wait: nil)
    }
}

extension AssemblyClient: AssemblyService {}

/// Sends an Assembly's files. The real one speaks tus; tests record what would be sent.
public protocol UploadService: Sendable {
    /// Uploads `files` of `assembly` to the tus endpoint `url`; results in the order of `files`.
    func upload(
        _ files: [UploadFile], to url: String, for assembly: AssemblyReference, options: UploadOptions,
        progress: @escaping @Sendable (UploadProgress) -> Void
    ) async throws -> [Result<UploadResult, any Error>]
}

/// Uploads over tus with a shared HTTP client, asking each endpoint's capabilities once per run.
public struct TusUploads: UploadService {
    let http: HTTPClient
    let known = TusCapabilityCache()

    /// Creates the service.
    public init(http: HTTPClient) {
        self.http = http
    }

    /// Uploads every file with a `TusUploader` (each names its Assembly in its `assembly_url` metadata, as tus has it).
    public func upload(
        _ files: [UploadFile], to url: String, for assembly: AssemblyReference, options: UploadOptions,
        progress: @escaping @Sendable (UploadProgress) -> Void
    ) async throws -> [Result<UploadResult, any Error>] {
        try await TusUploader(endpoint: url, options: options, http: http, known: known).upload(files, progress: progress)
    }
}

/// The services a run talks to, when they are not the HTTP clients of its endpoint (the
/// embedded engine serves them in the run's own process).
public struct Services: Sendable {
    /// Creates, watches and cancels Assemblies.
    public var assemblies: any AssemblyService
    /// Hands over each Assembly's files.
    public var uploads: any UploadService
    /// The Templates API.
    public var templates: any TemplateTransport

    /// Creates the set.
    public init(assemblies: any AssemblyService, uploads: any UploadService, templates: any TemplateTransport) {
        (self.assemblies, self.uploads, self.templates) = (assemblies, uploads, templates)
    }
}
