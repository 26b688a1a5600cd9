import Basics
import Foundation
import HTTPClient
import Wire

/// A Template as the service keeps it.
public struct RemoteTemplate: Sendable, Equatable {
    /// Its id.
    public var id: String
    /// Its name.
    public var name: String
    /// `steps` and settings such as `allow_steps_override`.
    public var content: JSONValue
    /// Whether it runs only for signed requests.
    public var requireSignatureAuth: Bool

    /// Creates a Template as the service describes it.
    public init(id: String, name: String, content: JSONValue, requireSignatureAuth: Bool) {
        (self.id, self.name, self.content, self.requireSignatureAuth) = (id, name, content, requireSignatureAuth)
    }
}

/// One request of the Templates API.
public enum TemplateRequest: Sendable {
    /// A page of the listing, from 1.
    case list(page: Int, pageSize: Int)
    /// One Template.
    case get(id: String)
    /// A new Template with these params (`name`, `template`, `require_signature_auth`).
    case create(params: [String: JSONValue])
    /// Replaces a Template's params.
    case update(id: String, params: [String: JSONValue])
    /// Deletes a Template.
    case delete(id: String)
}

/// How Template requests reach the service: signed over HTTP, or to an engine in this process.
public protocol TemplateTransport: Sendable {
    /// Sends one request; the answer's JSON, or an `AssemblyClient.Failure`.
    func send(_ request: TemplateRequest) async throws -> JSONValue
}

/// The Templates API: list (every page), create and update, signed like Assemblies.
public struct TemplateClient: Sendable {
    let transport: any TemplateTransport
    /// The clock retries wait on.
    let waitClock: any MonotonicClock

    /// Creates a client over HTTP; without an Auth Key requests go unsigned (the local engine).
    public init(http: HTTPClient, endpoint: String, authKey: String?, signer: (any ParamsSigner)?, lifetime: Duration, clock: ServiceClock = ServiceClock(),
                waitClock: any MonotonicClock = SystemClock()) {
        transport = HTTPTemplateTransport(http: http, endpoint: endpoint, authKey: authKey, signer: signer, lifetime: lifetime, clock: clock)
        self.waitClock = waitClock
    }

    /// Creates a client over `transport`, waiting on `waitClock` between retries.
    public init(transport: any TemplateTransport, waitClock: any MonotonicClock = SystemClock()) {
        self.transport = transport
        self.waitClock = waitClock
    }

    /// Every Template, following the pages until a short one, one that brings nothing new, or
    /// the `count` the service gave; a service that never stops paging is an error, not a hang.
    public func list() async throws -> [RemoteTemplate] {
        var all: [RemoteTemplate] = []
        var seen: Set<String> = []
        for page in 1...Self.maxPages {
            let answer = TemplateListDocument(try await send(.list(page: page, pageSize: Self.pageSize)))
            let items = answer.items.compactMap(Self.template)
            let fresh = items.filter { seen.insert($0.id).inserted }
            all += fresh
            // The service may answer fewer items than asked for: with a `count`, paging goes on until
            // it is reached; without one, a short page is the last. A page with nothing new always ends it.
            if fresh.isEmpty { return all }
            if let count = answer.count { if all.count >= count { return all } } else if items.count < Self.pageSize { return all }
        }
        throw AssemblyClient.Failure(
            code: .tooManyTemplates, message: "the service listed more than \(Self.maxPages * Self.pageSize) Templates; stopped there")
    }

    /// One Template by id; an id that is not letters, digits, '-' and '_' is refused before any request.
    public func get(id: String) async throws -> RemoteTemplate {
        guard Self.isPlainID(id) else {
            throw AssemblyClient.Failure(code: .invalidTemplateID, message: "'\(id)' is not a Template id (letters, digits, '-' and '_')")
        }
        guard let template = Self.template(TemplateDocument(try await send(.get(id: id)))), template.id == id else {
            throw AssemblyClient.Failure(code: .noTemplate, message: "the service did not answer with Template \(id)")
        }
        return template
    }

    /// Whether `id` can go into a URL path as it is.
    public static func isPlainID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 128 && id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
    }

    /// Creates a Template; returns its id.
    public func create(name: String, content: JSONValue, requireSignatureAuth: Bool) async throws -> String {
        guard let id = TemplateDocument(try await send(.create(params: Self.body(name, content, requireSignatureAuth)))).id, Self.isPlainID(id) else {
            throw AssemblyClient.Failure(code: .noTemplateID, message: "the service answered without a Template id (letters, digits, '-' and '_')")
        }
        return id
    }

    /// Replaces a Template's content and settings.
    public func update(id: String, name: String, content: JSONValue, requireSignatureAuth: Bool) async throws {
        _ = try await send(.update(id: id, params: Self.body(name, content, requireSignatureAuth)))
    }

    /// Deletes a Template.
    public func delete(id: String) async throws {
        _ = try await send(.delete(id: id))
    }

    static let pageSize = 500
    static let maxPages = 200

    private static func body(_ name: String, _ content: JSONValue, _ requireSignature: Bool) -> [String: JSONValue] {
        ["name": .string(name), "template": content, "require_signature_auth": .int(requireSignature ? 1 : 0)]
    }

    /// A Template the service listed; nil without a plain id (ids go into URLs and state) or a name.
    private static func template(_ document: TemplateDocument) -> RemoteTemplate? {
        guard let id = document.id, isPlainID(id), let name = document.name?.printable else { return nil }
        return RemoteTemplate(id: id, name: name, content: document.content ?? .object([:]), requireSignatureAuth: document.requireSignatureAuth)
    }

    /// A request the service refused for load (429, 503), which it did not act on: four attempts,
    /// after its `retryIn` when above 0, else its `Retry-After`, else 1, 2, 4 s.
    static let retryPolicy = RetryPolicy(attempts: 4, backoff: .doubling(cap: .seconds(4)), longestStatedWait: .seconds(AssemblyClient.Failure.longestWait))

    /// One signed request, sent again (signed afresh) while the service refuses it for load.
    private func send(_ request: TemplateRequest) async throws -> JSONValue {
        try await Self.retryPolicy.run(on: waitClock) { error in
            guard let failure = error as? AssemblyClient.Failure, [429, 503].contains(failure.httpStatus ?? 0) else { return nil }
            return RetryPolicy.Advice(statedSeconds: failure.retryIn)
        } _: {
            try await transport.send(request)
        }
    }
}

/// Template requests over HTTP, signed as Assemblies are.
struct HTTPTemplateTransport: TemplateTransport {
    let http: HTTPClient
    let endpoint: String
    let authKey: String?
    let signer: (any ParamsSigner)?
    let lifetime: Duration
    /// The service's clock, by which signatures expire; learnt from every answer.
    let clock: ServiceClock

    init(http: HTTPClient, endpoint: String, authKey: String?, signer: (any ParamsSigner)?, lifetime: Duration, clock: ServiceClock) {
        self.http = http
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        (self.authKey, self.signer, self.lifetime, self.clock) = (authKey, signer, lifetime, clock)
    }

    /// One signed request: the params in a form, or in the query for GET.
    func send(_ request: TemplateRequest) async throws -> JSONValue {
        let (method, path, params): (String, String, [String: JSONValue]) = switch request {
        case .list(let page, let size): ("GET", "/templates", ["page": .int(page), "pagesize": .int(size)])
        case .get(let id): ("GET", "/templates/" + id, [:])
        case .create(let params): ("POST", "/templates", params)
        case .update(let id, let params): ("PUT", "/templates/" + id, params)
        case .delete(let id): ("DELETE", "/templates/" + id, [:])
        }
        var fields: [(String, String)]
        if let authKey, let signer {
            let text = AuthParams.prepare(.object(params), key: authKey, lifetime: lifetime, now: clock.now).serialized()
            fields = [("params", text), ("signature", try await signer.sign(text))]
        } else {
            fields = [("params", JSONValue.object(params).serialized())]
        }
        let encoded = fields.map { AssemblyClient.escape($0.0) + "=" + AssemblyClient.escape($0.1) }.joined(separator: "&")
        let sent = method == "GET" || method == "DELETE"
            ? HTTPRequest(method: method, url: endpoint + path + "?" + encoded, timeouts: HTTPTimeouts(total: .seconds(60)))
            : HTTPRequest(method: method, url: endpoint + path, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                          body: .data(Data(encoded.utf8)), timeouts: HTTPTimeouts(total: .seconds(60)))
        let response = try await http.send(sent)
        clock.observe(dateHeader: response.headers["Date"])
        let parsed = JSONValue.parseIfValid(response.body)
        let wait = parsed?["info"]?["retryIn"]?.doubleValue.flatMap { $0 > 0 ? $0 : nil } ?? response.retryAfter
        guard let json = parsed else {
            throw AssemblyClient.Failure(
                code: .http(response.status), message: "\(sent.summary) answered: \(response.bodyText())", retryIn: wait, httpStatus: response.status)
        }
        if let error = json["error"]?.stringValue {
            let message = [json["message"]?.stringValue ?? "", error == .authExpired ? clock.explanation : ""].filter { !$0.isEmpty }.joined(separator: "; ")
            throw AssemblyClient.Failure(code: APIErrorCode(received: error.printable), message: message, retryIn: wait, httpStatus: response.status)
        }
        guard (200..<300).contains(response.status) else {
            throw AssemblyClient.Failure(code: .http(response.status), message: json["message"]?.stringValue ?? "", retryIn: wait, httpStatus: response.status)
        }
        return json
    }
}
