import Basics
import Foundation
import Spec
import Wire

/// The inputs the project reads from outside, each as a fuzz target: arbitrary bytes in, and a
/// property that must hold (besides not crashing). The fuzzers under `Fuzz/` call `run`; the
/// test suite replays every input kept in `Fuzz/Corpus/<name>/` through it.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// YAML text through the manifest loader and the diagnostic renderer.
    case manifest
    /// YAML text through the policy loader, then a policy check of a fixed request.
    case policy
    /// The strict JSON parser; what it accepts serializes to text that reads back to the same text.
    case json
    /// tus headers, one per line: metadata, offsets, checksums, dates.
    case tusHeaders = "tus-headers"
    /// A multipart body sent to a real server on 127.0.0.1 with a form plan.
    case form

    /// Runs one input; `false` when a property of the target does not hold.
    public func run(_ data: Data) -> Bool {
        switch self {
        case .manifest: Self.manifest(data)
        case .policy: Self.policy(data)
        case .json: Self.json(data)
        case .tusHeaders: Self.tusHeaders(data)
        case .form: FormFuzzServer.shared.post(data)
        }
    }

    private static let environment = ["HOME": "/home/fuzz", "TRANSLOADIT_KEY": "fuzz-key"]

    private static func manifest(_ data: Data) -> Bool {
        let loaded = ManifestLoader(environment: environment).decode(data, file: "fuzz.yml")
        let rendered = DiagnosticRenderer(sources: loaded.sources, githubActions: true).render(loaded.diagnostics)
        // Errors are reported, never swallowed: a manifest is either loaded or explained.
        return (loaded.value != nil) != loaded.diagnostics.containsErrors && rendered.utf8.count < 1 << 20
    }

    private static func policy(_ data: Data) -> Bool {
        let loaded = PolicyLoader(environment: environment).decode(data, file: "fuzz-policy.yml")
        guard let policy = loaded.value else { return loaded.diagnostics.containsErrors }
        let request: JSONValue = .object(["steps": .object(["thumb": .object([
            "robot": .string("/image/resize"), "use": .string(":original"), "width": .int(200),
        ])])])
        _ = policy.check(AssemblyRequest(params: request, fileSizes: [1024]))
        return !loaded.diagnostics.containsErrors
    }

    private static func json(_ data: Data) -> Bool {
        guard let value = JSONValue.parseIfValid(data) else { return true }  // not JSON: nothing to round-trip
        let text = value.serialized()
        return JSONValue.parseIfValid(Data(text.utf8))?.serialized() == text  // a failed parse is the finding
    }

    private static func tusHeaders(_ data: Data) -> Bool {
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init) {
            _ = TusProtocol.decodeMetadata(line)
            if let strict = TusProtocol.parseMetadata(line), TusProtocol.parseMetadata(TusProtocol.encodeMetadata(strict)) != strict {
                return false
            }
            if let count = TusProtocol.parseCount(line), String(count) != line.drop(while: { $0 == "0" }).description, count != 0 {
                return false
            }
            _ = TusProtocol.parseChecksum(line)
            _ = TusProtocol.parseHTTPDate(line)
        }
        return true
    }
}
