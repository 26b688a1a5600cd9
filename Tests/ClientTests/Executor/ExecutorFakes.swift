import APIClients
import Basics
import Client
import Foundation
import Planning
import Synchronization
import Wire

/// An Assembly API that answers from a script, one answer per call, and records the calls.
final class ScriptedService: AssemblyService {
    enum Answer {
        case state(JSONValue)
        case failure(AssemblyClient.Failure)
    }

    private let script: Mutex<(creates: [Answer], statuses: [Answer], calls: [String])>
    /// The longest hold every answer offers (`StatusWait`), if any.
    private let holds: Int?

    init(creates: [Answer], statuses: [Answer], holds: Int? = nil) {
        script = Mutex((creates, statuses, []))
        self.holds = holds
    }

    var calls: [String] { script.withLock { $0.calls } }

    func create(id: String, params: String, signature: String?, expectedUploads: Int) async throws(AssemblyClient.Failure) -> AssemblyState {
        try next(\.creates, call: "create \(id)" + (signature.map { " signed " + $0 } ?? ""))
    }

    func status(_ assembly: AssemblyReference, wait: Int?) async throws(AssemblyClient.Failure) -> AssemblyState {
        try next(\.statuses, call: "status \(Self.url(of: assembly))" + (wait.map { " wait \($0)" } ?? ""))
    }

    func cancel(_ assembly: AssemblyReference) async throws(AssemblyClient.Failure) -> AssemblyState {
        script.withLock { $0.calls.append("cancel \(Self.url(of: assembly))") }
        return AssemblyState(.object(["ok": .string("ASSEMBLY_CANCELED")]))
    }

    /// The URL an HTTP client of the tests' endpoint (`https://api.test`) asks about `assembly`.
    static func url(of assembly: AssemblyReference) -> String {
        assembly.statusURL ?? "https://api.test/assemblies/" + assembly.id
    }

    private func next(_ queue: WritableKeyPath<(creates: [Answer], statuses: [Answer], calls: [String]), [Answer]>, call: String) throws(AssemblyClient.Failure) -> AssemblyState {
        let answer: Answer? = script.withLock { script in
            script.calls.append(call)
            return script[keyPath: queue].isEmpty ? nil : script[keyPath: queue].removeFirst()
        }
        switch answer {
        case .state(let json)?:
            var state = AssemblyState(json)
            state.statusWait = holds
            return state
        case .failure(let failure)?: throw failure
        case nil: throw AssemblyClient.Failure(code: APIErrorCode(received: "SCRIPT_ENDED"), message: "no answer left for \(call)")
        }
    }

    /// A status as the API sends it.
    static func status(_ ok: AssemblyStatusCode, id: String = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1", uploads: Int = 0) -> Answer {
        .state(.object([
            "ok": .string(ok.rawValue), "assembly_id": .string(id), "assembly_ssl_url": .string("https://api.test/assemblies/" + id),
            "tus_url": .string("https://api.test/resumable/files/"),
            "uploads": .array((0..<uploads).map { .object(["id": .string("u\($0)"), "name": .string("f"), "field": .string("file_\($0)"), "size": .int(1)]) }),
        ]))
    }
}

/// Uploads that succeed at once and are counted.
final class CountingUploads: UploadService {
    private let count = Mutex(0)
    var files: Int { count.withLock { $0 } }

    func upload(
        _ files: [UploadFile], to url: String, for assembly: AssemblyReference, options: UploadOptions,
        progress: @escaping @Sendable (UploadProgress) -> Void
    ) async throws -> [Result<UploadResult, any Error>] {
        count.withLock { $0 += files.count }
        return files.enumerated().map { index, file in .success(UploadResult(index: index, path: file.path, url: url + "\(index)", size: 1, resumedFrom: 0)) }
    }
}

/// Uploads the server refuses for good.
struct FailingUploads: UploadService {
    func upload(
        _ files: [UploadFile], to url: String, for assembly: AssemblyReference, options: UploadOptions,
        progress: @escaping @Sendable (UploadProgress) -> Void
    ) async throws -> [Result<UploadResult, any Error>] {
        throw TusError(.rejected, request: "POST \(url)", status: 403, detail: "refused")
    }
}

extension AssemblyState {
    /// The state a server's status JSON `json` gives, read as the client reads a response body.
    init(_ json: JSONValue) {
        self.init(AssemblyStatusDocument.decode(Data(json.serialized().utf8)) ?? AssemblyStatusDocument())
    }
}
