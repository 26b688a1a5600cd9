import Basics
import Crypto
import Spec

/// What identifies each step's results for one source file, apart from that file's content: a
/// digest of the step as written (robot and every option), the job's `fields` (which options
/// may interpolate) and, in turn, the digests of the steps it uses (not their names). Two runs that agree on a
/// file's SHA-256 and a step's digest make the same results, so a result is made once.
///
/// Only jobs whose every step makes each of its results from one source file qualify; a job run
/// through a Template (its steps are the service's), with a robot that bundles or imports, or
/// with a `use` of named inputs (`{steps: [{name, as}]}`), is cached as a whole Assembly.
public enum StepDigests {
    /// The robots each of whose results comes from exactly one source file: those the local
    /// engine runs say so in their declarations (exports included), and these only the service runs.
    public static let hostedPerFileRobots: Set<String> = [
        "/image/enhance", "/image/upscale", "/image/bgremove", "/image/describe", "/image/facedetect", "/image/ocr", "/file/preview",
        "/file/virusscan", "/file/watermark", "/document/convert", "/document/optimize", "/document/autorotate", "/video/artwork",
        "/audio/artwork", "/meta/read",
    ]

    /// Every robot each of whose results comes from exactly one source file.
    public static let perFileRobots: Set<String> = hostedPerFileRobots.union(RobotRegistry.byName.filter { $0.value.digest == .perSourceFile }.keys)

    /// Each step's digest (32 hex digits) by name; nil when the job is not cached step by step.
    public static func of(_ instructions: JSONValue) -> [String: String]? {
        guard instructions["template"] == nil, instructions["template_id"] == nil,
              let steps = instructions["steps"]?.objectValue, !steps.isEmpty else { return nil }
        for step in steps.values {
            guard let robot = step["robot"]?.stringValue, perFileRobots.contains(robot),
                  step["use"]?.objectValue == nil, step["bundle_steps"] == nil else { return nil }
        }
        let fields = instructions["fields"] ?? .null
        var digests: [String: String] = [:]
        var visiting: Set<String> = []
        func digest(_ name: String) -> String? {
            if let known = digests[name] { return known }
            guard let step = steps[name], visiting.insert(name).inserted else { return nil }  // a cycle: not cached by step
            defer { visiting.remove(name) }
            var used: [JSONValue] = []
            for use in StepUses.of(step) {
                if use == ":original", steps[use] == nil {
                    used.append(.string(use))
                } else {
                    guard let digest = digest(use) else { return nil }
                    used.append(.string(digest))
                }
            }
            // What it uses counts by digest, not by name: a renamed step is the same work. Whether
            // errors are ignored changes no result a file has: adding it re-processes nothing.
            var options = step.objectValue ?? [:]
            options.removeValue(forKey: "use")
            options.removeValue(forKey: "ignore_errors")
            let canonical = JSONValue.object(["fields": fields, "step": .object(options), "uses": .array(used)]).serialized()
            let made = String(SHA256.hex(Array(canonical.utf8)).prefix(32))
            digests[name] = made
            return made
        }
        for name in steps.keys.sorted() {
            guard digest(name) != nil else { return nil }
        }
        return digests
    }

    /// `instructions` with only `wanted` steps and every step they use, directly or not: the
    /// Assembly that makes the missing results of a file, and what they are made from.
    public static func pruned(_ instructions: JSONValue, to wanted: Set<String>) -> JSONValue {
        guard var object = instructions.objectValue, let steps = object["steps"]?.objectValue else { return instructions }
        var kept: Set<String> = []
        var queue = Array(wanted)
        while let name = queue.popLast() {
            guard let step = steps[name], kept.insert(name).inserted else { continue }
            queue += StepUses.of(step)
        }
        object["steps"] = .object(steps.filter { kept.contains($0.key) })
        return .object(object)
    }
}
