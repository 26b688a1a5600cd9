import Basics
import APIClients
import Foundation
import HTTPClient
import Synchronization

/// The service's Templates by id, fetched with the signer's own key and kept for a short time, so a
/// `template_id` can be checked by the Template's name and steps rather than by its opaque id.
final class TemplateDirectory: Sendable {
    private let endpoint: String
    private let http: HTTPClient
    private let secret: String
    private let freshFor: Duration
    private let capacity: Int
    /// Answers by account and id: a Template, or the refusal of an id the service does not have
    /// (kept too, so unknown ids cannot make the signer ask again and again).
    private let cache = Mutex<[String: (answer: Result<RemoteTemplate, Refusal>, fetched: ContinuousClock.Instant)]>([:])

    /// Looks Templates up at `endpoint`; answers are reused for `freshFor`, at most `capacity` of them.
    init(endpoint: String, http: HTTPClient, secret: String, freshFor: Duration = .seconds(60), capacity: Int = 1_000) {
        self.endpoint = endpoint
        self.http = http
        self.secret = secret
        self.freshFor = freshFor
        self.capacity = capacity
    }

    /// The Template `id` of the account `authKey`; blocks the calling (connection) thread while it asks.
    /// 403 when the service has no such Template for that key, 502 when it cannot be asked.
    func template(id: String, authKey: String) throws(Refusal) -> RemoteTemplate {
        let now = ContinuousClock.now
        if let cached = cache.withLock({ $0[authKey + "/" + id] }), now - cached.fetched < freshFor { return try cached.answer.get() }
        let client = TemplateClient(http: http, endpoint: endpoint, authKey: authKey, signer: SecretSigner(secret: secret), lifetime: .seconds(300))
        func remember(_ answer: Result<RemoteTemplate, Refusal>) {
            cache.withLock { cache in
                if cache.count >= capacity { cache.removeAll() }
                cache[authKey + "/" + id] = (answer, now)
            }
        }
        switch BlockingWait.result({ try await client.get(id: id) }) {
        case .success(let template):
            remember(.success(template))
            return template
        case .failure(let failure as AssemblyClient.Failure) where (failure.code.httpStatus ?? 0) < 500:
            let refusal = Refusal(
                status: 403, code: .policyViolation, message: "the policy does not allow these params",
                violations: [.init(
                    id: "signer.template-unknown", message: "the service has no Template '\(id)' for this Auth Key (\(failure.code))", path: "template_id")])
            remember(.failure(refusal))
            throw refusal
        case .failure(let error):
            // Not the service's "no": a transport error (alone: its URL carries signed params) or a 5xx.
            let reason = (error as? HTTPError)?.message ?? (error as? AssemblyClient.Failure)?.code.rawValue ?? "\(error)"
            throw Refusal(status: 502, code: .templateLookupFailed, message: "could not look up Template '\(id)' at \(endpoint): \(reason)")
        }
    }
}
