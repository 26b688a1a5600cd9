import Basics
import Crypto
import Foundation
import Postgres

/// The Templates of engines sharing a database: one row each, the name unique across engines, so
/// a Template made through one engine runs on all of them.
final class SharedTemplates: TemplateRecords {
    private let state: SharedState
    private let warn: @Sendable (String) -> Void

    init(state: SharedState, warn: @escaping @Sendable (String) -> Void) {
        (self.state, self.warn) = (state, warn)
    }

    func get(_ id: String) -> TemplateRecord? {
        records("SELECT record FROM pipeline_templates WHERE id = $1", [id]).first
    }

    var all: [TemplateRecord] { records("SELECT record FROM pipeline_templates ORDER BY created, id", []) }

    private func records(_ sql: String, _ parameters: [String?]) -> [TemplateRecord] {
        do {
            let rows = try state.database { try $0.execute(sql, parameters) }
            return try (0..<rows.count).compactMap { row in
                try rows.string(row, "record").map { try StateCoding.decode(TemplateRecord.self, from: Data($0.utf8)) }
            }
        } catch {
            warn("Templates could not be read from the database: \(error)")
            return []
        }
    }

    func create(name: String, content: JSONValue, requireSignatureAuth: Bool, now: Date) -> Result<TemplateRecord, TemplateStoreError> {
        let record = TemplateRecord(id: RandomID.hex32(), name: name, content: content, requireSignatureAuth: requireSignatureAuth, created: now, modified: now)
        do {
            let rows = try state.database { connection in
                try connection.execute(
                    "INSERT INTO pipeline_templates (id, name, created, record) VALUES ($1, $2, to_timestamp($3), $4) ON CONFLICT (name) DO NOTHING RETURNING id",
                    [record.id, name, String(now.timeIntervalSince1970), try Self.text(record)])
            }
            return rows.count == 1 ? .success(record) : .failure(.nameTaken)
        } catch {
            return .failure(.notSaved("\(error)"))
        }
    }

    /// Adds `record` as it is (a moved data folder's); false when its id or name is taken.
    func insert(_ record: TemplateRecord) throws -> Bool {
        try state.database { connection in
            try connection.execute(
                "INSERT INTO pipeline_templates (id, name, created, record) VALUES ($1, $2, to_timestamp($3), $4) ON CONFLICT DO NOTHING RETURNING id",
                [record.id, record.name, String(record.created.timeIntervalSince1970), try Self.text(record)])
        }.count == 1
    }

    func update(_ id: String, _ change: (inout TemplateRecord) -> Void) -> Result<TemplateRecord, TemplateStoreError> {
        do {
            return try state.database { connection in
                try connection.transaction { connection -> Result<TemplateRecord, TemplateStoreError> in
                    let rows = try connection.execute("SELECT record FROM pipeline_templates WHERE id = $1 FOR UPDATE", [id])
                    guard rows.count == 1, let text = try rows.string(0, "record") else { return .failure(.notFound) }
                    var record = try StateCoding.decode(TemplateRecord.self, from: Data(text.utf8))
                    change(&record)
                    record.modified = Date()
                    let taken = try connection.execute("SELECT 1 FROM pipeline_templates WHERE name = $1 AND id <> $2", [record.name, id])
                    guard taken.count == 0 else { return .failure(.nameTaken) }
                    try connection.execute("UPDATE pipeline_templates SET name = $2, record = $3 WHERE id = $1", [id, record.name, try Self.text(record)])
                    return .success(record)
                }
            }
        } catch {
            return .failure(.notSaved("\(error)"))
        }
    }

    func delete(_ id: String) -> Bool {
        do {
            return try state.database { try $0.execute("DELETE FROM pipeline_templates WHERE id = $1 RETURNING id", [id]) }.count == 1
        } catch {
            warn("Template \(id) could not be deleted from the database: \(error)")
            return false
        }
    }

    private static func text(_ record: TemplateRecord) throws -> String {
        String(decoding: try StateCoding.encoder.encode(record), as: UTF8.self)
    }
}
