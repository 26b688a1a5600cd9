import Basics
import Foundation
import HTTPClient
import Synchronization

/// One provider's public keys, as its JWKS file says or as fetched over HTTPS (after discovery
/// when no `jwks_uri` is configured) and kept by the `KeyCachePolicy`. Fetches block the calling
/// connection thread; one fetch runs at a time per provider.
final class ProviderKeys: Sendable {
    let provider: IdentityProvider
    private let http: HTTPClient
    private let policy: KeyCachePolicy
    private let clock: any MonotonicClock
    /// Where the operator reads why keys could not be fetched (the caller is told only that).
    private let log: @Sendable (String) -> Void

    private struct Cache {
        var keys: JSONWebKeys?
        var freshUntil: ContinuousClock.Instant
        var usableUntil: ContinuousClock.Instant
        var lastFetch: ContinuousClock.Instant?
        /// Key ids a fetch was made for and did not find: unknown, not new (bounded).
        var missingAtFetch: Set<String> = []
    }

    /// How many key ids a fetch remembers not finding.
    private static let rememberedMissing = 256

    private let cache: Mutex<Cache>
    private let fetching = Mutex(())

    /// The keys of `provider`; a JWKS file is read now (the error says why it cannot be).
    init(provider: IdentityProvider, http: HTTPClient, policy: KeyCachePolicy, clock: any MonotonicClock = SystemClock(),
         log: @escaping @Sendable (String) -> Void) throws(DiagnosticsError) {
        self.provider = provider
        self.http = http
        self.policy = policy
        self.clock = clock
        self.log = log
        let now = clock.now
        cache = Mutex(Cache(freshUntil: now, usableUntil: now))
        if case .file(let path) = provider.keys {
            let keys: JSONWebKeys
            do { keys = try JSONWebKeys(file: path) } catch {
                throw DiagnosticsError(.error("signer.jwks", "the JWKS file of provider '\(provider.name)' cannot be used: \(error.reason)",
                                              hint: "download the provider's JWKS (its jwks_uri) into that file"))
            }
            cache.withLock { $0 = Cache(keys: keys, freshUntil: now + .seconds(315_360_000), usableUntil: now + .seconds(315_360_000)) }
        }
    }

    /// The keys to check a token naming `keyID` with: the cached ones while fresh and knowing that
    /// id; otherwise fetched again, unless a fetch ran within `refetchInterval` or another request
    /// is fetching (then the cached ones, if still usable). 503 when there are no usable keys and
    /// the provider cannot be reached.
    func keys(for keyID: String?) throws(Refusal) -> JSONWebKeys {
        if let keys = usable(knowing: keyID) { return keys }
        // While another request fetches, one that has keys to try does not queue behind it (a
        // slow provider would otherwise hold every connection thread).
        if let keys = try fetching.withLockIfAvailable({ _ throws(Refusal) -> JSONWebKeys in try refresh(for: keyID) }) { return keys }
        // Cached keys serve meanwhile when they know the id; a token naming a key they lack may
        // name one just published, which the fetch under way may bring: it waits for that.
        let now = clock.now
        if let keys = cache.withLock({ $0.keys != nil && now < $0.usableUntil && $0.keys?.contains(keyID: keyID) == true ? $0.keys : nil }) {
            return keys
        }
        return try fetching.withLock { _ throws(Refusal) -> JSONWebKeys in try refresh(for: keyID) }
    }

    /// Fetches the keys unless fresh ones know `keyID` or a fetch ran within `refetchInterval`;
    /// called with `fetching` held.
    private func refresh(for keyID: String?) throws(Refusal) -> JSONWebKeys {
        // Another request may have fetched while this one waited.
        if let keys = usable(knowing: keyID) { return keys }
        let now = clock.now
        let state = cache.withLock { $0 }
        if let last = state.lastFetch, now - last < policy.refetchInterval {
            guard let keys = state.keys, now < state.usableUntil else { throw unavailable() }
            // A key id the last fetch looked for and did not find is unknown. One first seen within
            // the cooldown may be a key the provider published seconds ago (a rotation): the caller
            // is asked to come back when a fetch may run, rather than refused for good.
            if let keyID, !keys.contains(keyID: keyID), !state.missingAtFetch.contains(keyID) {
                throw notYetFetched(keyID, retryIn: policy.refetchInterval - (now - last))
            }
            return keys
        }
        cache.withLock { $0.lastFetch = now; $0.missingAtFetch = [] }
        switch BlockingWait.result({ [self] in try await fetch() }) {
        case .success(let (keys, freshness)):
            if !keys.weakKeyIDs.isEmpty {
                log("identity provider '\(provider.name)' lists RSA keys under \(JSONWebKeys.minimumRSABits) bits, which are not used: \(keys.weakKeyIDs.joined(separator: ", "))")
            }
            cache.withLock { cache in
                cache.keys = keys
                cache.freshUntil = now + freshness
                cache.usableUntil = now + freshness + policy.staleFor
                if let keyID, !keys.contains(keyID: keyID), cache.missingAtFetch.count < Self.rememberedMissing { cache.missingAtFetch.insert(keyID) }
            }
            return keys
        case .failure(let error):
            let reason = (error as? FetchFailure)?.reason ?? (error as? HTTPError)?.description ?? "\(error)"
            let stale = state.keys != nil && now < state.usableUntil
            log("cannot fetch the keys of identity provider '\(provider.name)': \(reason)" + (stale ? " (the cached keys serve meanwhile)" : ""))
            if let keys = state.keys, now < state.usableUntil { return keys }
            throw unavailable()
        }
    }

    private func usable(knowing keyID: String?) -> JSONWebKeys? {
        let now = clock.now
        return cache.withLock { cache in
            guard let keys = cache.keys, now < cache.freshUntil, keys.contains(keyID: keyID) else { return nil }
            return keys
        }
    }

    /// A key id the cached keys lack, asked within the refetch cooldown: transient, for `retryIn`.
    private func notYetFetched(_ keyID: String, retryIn: Duration) -> Refusal {
        let seconds = max(1, Int(retryIn.inSeconds.rounded(.up)))
        return Refusal(status: 503, code: .keyNotYetFetched,
                       message: "the token names key '\(keyID.printable)', which identity provider '\(provider.name)' did not list when last asked; "
                           + "its keys are fetched again in \(seconds) s", retryIn: seconds)
    }

    /// What the caller is told: why is the operator's business (and may name internal hosts).
    private func unavailable() -> Refusal {
        Refusal(status: 503, code: .keysUnavailable, message: "the keys of identity provider '\(provider.name)' cannot be fetched now; the signer's log says why",
                retryIn: max(1, Int(policy.refetchInterval.components.seconds)))
    }

    private struct FetchFailure: Error {
        var reason: String
    }

    /// Discovery (when needed), then the JWKS, with the freshness its answer allows.
    private func fetch() async throws -> (JSONWebKeys, Duration) {
        var location: String
        switch provider.keys {
        case .url(let url?): location = url
        case .url(nil):
            let discovery = try await get(provider.discoveryURL)
            guard let document = JSONValue.parseIfValid(discovery.body), let issuer = document["issuer"]?.stringValue,
                  let uri = document["jwks_uri"]?.stringValue else {
                throw FetchFailure(reason: "\(provider.discoveryURL) is not an OpenID Connect discovery document")
            }
            guard issuer == provider.issuer else {
                throw FetchFailure(reason: "discovery at \(provider.discoveryURL) names the issuer '\(issuer)', not '\(provider.issuer)'")
            }
            location = uri
        case .file(let path):
            // Read again: an operator rotating keys offline replaces the file.
            do {
                return (try JSONWebKeys(file: path), .seconds(315_360_000))
            } catch {
                throw FetchFailure(reason: "the JWKS file '\(path)' cannot be used: \(error.reason)")
            }
        }
        guard location.lowercased().hasPrefix("https://") else { throw FetchFailure(reason: "jwks_uri '\(location)' is not https") }
        let answer = try await get(location)
        let json: JSONValue
        do { json = try JSONValue.parse(answer.body) } catch { throw FetchFailure(reason: "\(location) did not answer a JWKS (\(error))") }
        let keys: JSONWebKeys
        do {
            keys = try JSONWebKeys(json: json)
            try keys.requireUsableKey(in: "it")
        } catch {
            throw FetchFailure(reason: "the JWKS at \(location) cannot be used: \(error.reason)")
        }
        return (keys, freshness(of: answer))
    }

    private func get(_ url: String) async throws -> HTTPResponse {
        let response = try await http.send(HTTPRequest(
            method: "GET", url: url, headers: [("Accept", "application/json")],
            timeouts: HTTPTimeouts(connect: .seconds(5), stallTime: .seconds(5), total: .seconds(10)), maxResponseBytes: 1 << 20))
        guard response.status == 200 else { throw FetchFailure(reason: "\(url) answered \(response.status)") }
        return response
    }

    /// `Cache-Control: max-age` held within the policy's bounds; `no-store`/`no-cache` give the least.
    private func freshness(of response: HTTPResponse) -> Duration {
        let directives = (response.headers["Cache-Control"] ?? "").lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if directives.contains("no-store") || directives.contains("no-cache") { return policy.freshness.lowerBound }
        guard let age = directives.first(where: { $0.hasPrefix("max-age=") }).flatMap({ Int($0.dropFirst(8)) }), age >= 0 else {
            return policy.defaultFreshness
        }
        return min(max(.seconds(age), policy.freshness.lowerBound), policy.freshness.upperBound)
    }
}
