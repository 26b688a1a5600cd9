import Foundation
import Basics
import Crypto

extension Plan {
    /// The plan as JSON (`schemas/plan.schema.json`).
    public var json: JSONValue {
        .object([
            "version": .int(Self.formatVersion),
            "pipeline": .string(pipeline),
            "manifest": .string(manifest),
            "assemblies": .array(assemblies.map(\.json)),
            "summary": .object([
                "jobs": .int(jobs.count),
                "assemblies": .int(assemblies.count),
                "files": .int(fileCount),
                "bytes": .int(Int(byteCount)),
                "usage": UsageEstimate(self).json,
            ]),
        ])
    }

    /// Reads a plan written by `pipeline plan --out`; errors name the file and what is wrong.
    public static func decode(_ data: Data, file: String) throws(DiagnosticsError) -> Plan {
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            throw DiagnosticsError(.error(
                "plan.invalid-json", "'\(file)' is not valid JSON", hint: "write plans with 'pipeline plan --out FILE'"))
        }
        var reader = PlanReader(file: file)
        guard let plan = reader.plan(value), reader.problems.isEmpty else {
            throw DiagnosticsError(reader.problems.map {
                .error("plan.invalid", "'\(file)': \($0)", hint: "write plans with 'pipeline plan --out FILE'")
            })
        }
        return plan
    }
}

extension PlannedAssembly {
    var json: JSONValue {
        .object([
            "id": .string(id),
            "job": .string(job),
            "instructions": instructions,
            "files": .array(files.map {
                .object(["path": .string($0.path), "size": .int(Int($0.size)), "sha256": .string($0.sha256)])
            }),
            "bytes": .int(Int(bytes)),
        ])
    }
}

/// Reads plan JSON back, naming the JSON path of anything missing or mistyped.
private struct PlanReader {
    let file: String
    var problems: [String] = []

    mutating func plan(_ value: JSONValue) -> Plan? {
        guard value["version"]?.intValue == Plan.formatVersion else {
            problems.append("'version' must be \(Plan.formatVersion)")
            return nil
        }
        guard let pipeline = string(value, "pipeline", at: ""), let manifest = string(value, "manifest", at: ""),
              let assemblies = value["assemblies"]?.arrayValue else {
            if value["assemblies"]?.arrayValue == nil { problems.append("'assemblies' must be an array") }
            return nil
        }
        let planned = assemblies.enumerated().compactMap { assembly($0.element, at: "assemblies[\($0.offset)]") }
        return Plan(pipeline: pipeline, manifest: manifest, assemblies: planned)
    }

    private mutating func assembly(_ value: JSONValue, at path: String) -> PlannedAssembly? {
        guard let id = string(value, "id", at: path), let job = string(value, "job", at: path) else { return nil }
        guard let instructions = value["instructions"], instructions.objectValue != nil else {
            problems.append("\(path).instructions must be an object")
            return nil
        }
        guard let files = value["files"]?.arrayValue else {
            problems.append("\(path).files must be an array")
            return nil
        }
        let planned = files.enumerated().compactMap { offset, file -> PlannedFile? in
            let at = "\(path).files[\(offset)]"
            guard let name = string(file, "path", at: at), let sha = string(file, "sha256", at: at) else { return nil }
            guard let digest = SHA256Digest(hex: sha) else {
                problems.append("\(at).sha256 must be 64 lowercase hexadecimal digits")
                return nil
            }
            guard let size = file["size"]?.intValue, size >= 0 else {
                problems.append("\(at).size must be a non-negative integer")
                return nil
            }
            return PlannedFile(path: name, size: Int64(size), digest: digest)
        }
        return PlannedAssembly(id: id, job: job, instructions: instructions, files: planned)
    }

    private mutating func string(_ value: JSONValue, _ key: String, at path: String) -> String? {
        if let text = value[key]?.stringValue { return text }
        problems.append("\(path.isEmpty ? "" : path + ".")\(key) must be a string")
        return nil
    }
}
