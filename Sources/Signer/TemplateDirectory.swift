import Basics
import Client
import Dispatch
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
    private let cache = Mutex<[String: (template: RemoteTemplate, fetched: ContinuousClock.Instant)]>([:])

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
        if let cached = cache.withLock({ $0[authKey + "/" + id] }), now - cached.fetched < freshFor { return cached.template }
        let client = TemplateClient(http: http, endpoint: endpoint, authKey: authKey, signer: SecretSigner(secret: secret), lifetime: .seconds(300))
        let answer = Answer()
        Task {
            do { answer.set(.success(try await client.get(id: id))) } catch { answer.set(.failure(error)) }
        }
        switch answer.wait() {
        case .success(let template):
            cache.withLock { cache in
                if cache.count >= capacity { cache.removeAll() }
                cache[authKey + "/" + id] = (template, now)
            }
            return template
        case .failure(let failure as AssemblyClient.Failure):
            throw Refusal(
                status: 403, code: "POLICY_VIOLATION", message: "the policy does not allow these params",
                violations: [.object([
                    "id": .string("signer.template-unknown"), "path": .string("template_id"),
                    "message": .string("the service has no Template '\(id)' for this Auth Key (\(failure.code))"),
                ])])
        case .failure(let error):
            // The transport error alone: the request's URL carries the signed params.
            let reason = (error as? HTTPError)?.message ?? "\(error)"
            throw Refusal(status: 502, code: "TEMPLATE_LOOKUP_FAILED", message: "could not look up Template '\(id)' at \(endpoint): \(reason)")
        }
    }

    /// One lookup's outcome, handed from its task to the waiting connection thread.
    private final class Answer: Sendable {
        private let result = Mutex<Result<RemoteTemplate, any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func set(_ value: Result<RemoteTemplate, any Error>) {
            result.withLock { $0 = value }
            done.signal()
        }

        func wait() -> Result<RemoteTemplate, any Error> {
            done.wait()
            return result.withLock { $0 } ?? .failure(CancellationError())
        }
    }
}
