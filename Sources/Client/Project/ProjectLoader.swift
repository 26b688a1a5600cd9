import Basics
import Foundation
import HTTPClient
import Planning
import Spec

/// Loads what a command works on, each file once: the manifest, then the policy it names,
/// fetched first when it is a URL (a signer's `GET /policy`), so plans are checked against the
/// very rules the signer enforces.
public struct ProjectLoader: Sendable {
    /// The variables manifests and policies interpolate.
    public var environment: [String: String]
    /// A policy file given on the command line, instead of the manifest's `policy:`.
    public var policyPath: String?
    /// The endpoint given on the command line, instead of the manifest's.
    public var endpointOverride: String?
    /// Hash every file, trusting no remembered digest (`--rehash`).
    public var rehash = false
    /// Fetches policies given by URL.
    public var http: HTTPClient

    /// Creates a loader.
    public init(environment: [String: String], policyPath: String? = nil, endpointOverride: String? = nil, http: HTTPClient) {
        self.http = http
        self.environment = environment
        self.policyPath = policyPath
        self.endpointOverride = endpointOverride
    }

    /// The manifest at `manifestPath` with its policy, and the session that plans it.
    public func load(_ manifestPath: String) async -> (project: Loaded<Project>, session: PlanningSession) {
        let manifest = ManifestLoader(environment: environment).load(path: manifestPath)
        let session = await session(for: [manifest.value ?? manifest.partial].compactMap { $0 })
        return (session.project(manifest), session)
    }

    /// A planning session with every policy URL that `manifests` name already fetched.
    public func session(for manifests: [Manifest]) async -> PlanningSession {
        var fetched: [String: Data] = [:]
        var failures: [String: String] = [:]
        if policyPath == nil {
            for url in manifests.compactMap({ $0.policy?.value }) where url.contains("://") && fetched[url] == nil {
                let request = HTTPRequest(method: "GET", url: url, timeouts: HTTPTimeouts(total: .seconds(15)), maxResponseBytes: 1 << 20)
                do {
                    let response = try await http.send(request)
                    if response.status == 200 { fetched[url] = response.body } else { failures[url] = "HTTP \(response.status)" }
                } catch let error as HTTPError {
                    failures[url] = error.message
                } catch {
                    failures[url] = "\(error)"
                }
            }
        }
        var session = PlanningSession(environment: environment, policyPath: policyPath, fetchedPolicies: fetched)
        session.policyFetchFailures = failures
        session.endpointOverride = endpointOverride
        let rehash = self.rehash
        session.digestCache = { DigestCache(file: Workspace(manifest: $0).digestCacheFile, rehashing: rehash) }
        return session
    }
}
