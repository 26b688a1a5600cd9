import Basics
import Crypto
import Foundation
import Wire
import HTTPServer
import Synchronization

/// A Template: named Assembly Instructions kept by the engine, as the Templates API describes.
struct TemplateRecord: Codable, Sendable, Equatable {
    var id: String
    var name: String
    /// `steps`, `allow_steps_override`, `notify_url`: what Assemblies with this `template_id` run.
    var content: JSONValue
    var requireSignatureAuth: Bool
    var created: Date
    var modified: Date

    /// Whether Assemblies may send `steps` next to this Template's id.
    var allowsStepsOverride: Bool { content["allow_steps_override"]?.boolValue ?? true }
}

/// Where an engine keeps its Templates: the data folder (`TemplateStore`) or the database engines
/// share (`SharedTemplates`). Names are unique.
protocol TemplateRecords: Sendable {
    /// Template `id`, or nil.
    func get(_ id: String) -> TemplateRecord?
    /// Every Template, oldest first.
    var all: [TemplateRecord] { get }
    /// Creates a Template; `.nameTaken` when another one has the name, `.notSaved` when it cannot be stored.
    func create(name: String, content: JSONValue, requireSignatureAuth: Bool, now: Date) -> Result<TemplateRecord, TemplateStoreError>
    /// Changes a Template; `.failure` names why it could not (unknown id, or a name another one has).
    func update(_ id: String, _ change: (inout TemplateRecord) -> Void) -> Result<TemplateRecord, TemplateStoreError>
    /// Deletes a Template; `false` when there was none.
    func delete(_ id: String) -> Bool
}

/// The engine's Templates, in memory and as JSON files in the data folder.
final class TemplateStore: TemplateRecords {
    let directory: String
    private let records: Mutex<[String: TemplateRecord]>

    /// A stored Template that cannot be read is left where it is and said through `warn`.
    init(directory: String, warn: @Sendable (String) -> Void = { _ in }) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var loaded: [String: TemplateRecord] = [:]
        for name in try FileSystem.names(in: directory) where name.hasSuffix(".json") {
            do {
                let record = try StateCoding.decode(TemplateRecord.self, from: try FileReading.read(directory + "/" + name, limit: 1 << 30))
                loaded[record.id] = record
            } catch {
                warn("ignored the stored Template '\(name.printable)': it cannot be read (\(error)); move it away to keep it from this message")
            }
        }
        records = Mutex(loaded)
    }

    func get(_ id: String) -> TemplateRecord? { records.withLock { $0[id] } }

    /// Every Template, oldest first.
    var all: [TemplateRecord] { records.withLock { $0.values.sorted { ($0.created, $0.id) < ($1.created, $1.id) } } }

    /// Creates a Template; `.nameTaken` when another one has the name, `.notSaved` when it
    /// cannot be written (then it is not kept either: a restart would lose it).
    func create(name: String, content: JSONValue, requireSignatureAuth: Bool, now: Date) -> Result<TemplateRecord, TemplateStoreError> {
        let record = TemplateRecord(
            id: RandomID.hex32(), name: name, content: content, requireSignatureAuth: requireSignatureAuth, created: now, modified: now)
        let created = records.withLock { records -> Bool in
            guard !records.values.contains(where: { $0.name == name }) else { return false }
            records[record.id] = record
            return true
        }
        guard created else { return .failure(.nameTaken) }
        do { try persist(record) } catch {
            records.withLock { _ = $0.removeValue(forKey: record.id) }
            return .failure(.notSaved("\(error)"))
        }
        return .success(record)
    }

    /// Changes a Template; `.failure` names why it could not (unknown id, or a name another one has).
    func update(_ id: String, _ change: (inout TemplateRecord) -> Void) -> Result<TemplateRecord, TemplateStoreError> {
        let outcome = records.withLock { records -> Result<TemplateRecord, TemplateStoreError> in
            guard var record = records[id] else { return .failure(.notFound) }
            change(&record)
            if records.values.contains(where: { $0.id != id && $0.name == record.name }) { return .failure(.nameTaken) }
            record.modified = Date()
            records[id] = record
            return .success(record)
        }
        guard case .success(let record) = outcome else { return outcome }
        do { try persist(record) } catch { return .failure(.notSaved("\(error)")) }
        return outcome
    }

    /// Deletes a Template; `false` when there was none.
    func delete(_ id: String) -> Bool {
        let removed = records.withLock { $0.removeValue(forKey: id) != nil }
        if removed, UploadStore.isValidID(id) { unlink(directory + "/" + id + ".json") }
        return removed
    }

    private func persist(_ record: TemplateRecord) throws {
        try AtomicFile.write(try StateCoding.encoder.encode(record), to: directory + "/" + record.id + ".json")
    }
}

/// Why a Template could not be made or changed.
enum TemplateStoreError: Error {
    case notFound
    case nameTaken
    /// The data folder could not be written (why).
    case notSaved(String)
}

extension TemplateRecords {
    /// Creates a Template now.
    func create(name: String, content: JSONValue, requireSignatureAuth: Bool) -> Result<TemplateRecord, TemplateStoreError> {
        create(name: name, content: content, requireSignatureAuth: requireSignatureAuth, now: Date())
    }

    /// An Assembly's params with its Template's instructions merged in: the Template's steps,
    /// with the runtime `steps` over them (refused when the Template forbids it), and its
    /// `notify_url` unless the params give one.
    func instructions(_ id: String, runtime params: JSONValue) -> Result<JSONValue, APIRefusal> {
        guard let template = get(id) else {
            return .failure(APIRefusal.templateNotFound(id))
        }
        var merged = params.objectValue ?? [:]
        var steps = template.content["steps"]?.objectValue ?? [:]
        if let runtime = params["steps"]?.objectValue, !runtime.isEmpty {
            guard template.allowsStepsOverride else {
                return .failure(APIRefusal.templateDeniesSteps(template.name))
            }
            steps.merge(runtime) { _, runtime in runtime }
        }
        merged["steps"] = .object(steps)
        if merged["notify_url"] == nil, let notify = template.content["notify_url"] { merged["notify_url"] = notify }
        return .success(.object(merged))
    }
}
