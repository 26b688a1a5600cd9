import Foundation
import HTTPClient
import Spec
import Planning

/// Fetches policies that manifests name by URL (a signer's `GET /policy`), so `plan` checks
/// against the very rules the signer enforces.
enum RemotePolicy {
    /// A planning session for `manifestPaths`, with any policy URL they name fetched first.
    static func session(for manifestPaths: [String], policyPath: String?, context: CommandContext) async -> PlanningSession {
        var fetched: [String: Data] = [:]
        if policyPath == nil {
            for path in manifestPaths {
                guard let url = ManifestLoader(environment: context.environment).load(path: path).value?.policy?.value,
                      url.contains("://"), fetched[url] == nil else { continue }
                let request = HTTPRequest(method: "GET", url: url, timeouts: HTTPTimeouts(total: .seconds(15)), maxResponseBytes: 1 << 20)
                if let response = try? await HTTPClient().send(request), response.status == 200 { fetched[url] = response.body }
            }
        }
        return PlanningSession(environment: context.environment, policyPath: policyPath, fetchedPolicies: fetched)
    }
}
