import CPostgres

/// What a statement gave back, copied out of libpq's result: its rows of text values (nil for
/// NULL), its column names, and how many rows it touched.
public struct PostgresRows: Sendable {
    /// The columns' names, in order.
    public let columns: [String]
    /// The number of rows.
    public let count: Int
    /// The rows an INSERT, UPDATE, DELETE, MERGE or SELECT touched (libpq's `PQcmdTuples`); 0 for other statements.
    public let affected: Int
    /// The values row by row, `columns.count` to a row.
    private let values: [String?]
    /// The statement's first words, for errors.
    private let operation: String

    /// Copies libpq's `result` of a successful statement (which the caller still clears).
    init(_ result: OpaquePointer?, operation: String) {
        let rowCount = Int(pipeline_pq_rows(result))
        let columnCount = Int(pipeline_pq_columns(result))
        columns = (0..<columnCount).map { column in
            pipeline_pq_column_name(result, Int32(column)).map { String(cString: $0) } ?? ""
        }
        var values: [String?] = []
        values.reserveCapacity(rowCount * columnCount)
        for row in 0..<Int32(rowCount) {
            for column in 0..<Int32(columnCount) {
                guard pipeline_pq_is_null(result, row, column) == 0, let text = pipeline_pq_value(result, row, column) else {
                    values.append(nil)
                    continue
                }
                let length = Int(pipeline_pq_length(result, row, column))
                values.append(text.withMemoryRebound(to: UInt8.self, capacity: length) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                })
            }
        }
        self.values = values
        count = rowCount
        affected = Int(String(cString: pipeline_pq_affected(result))) ?? 0
        self.operation = operation
    }

    /// The index of the column called `name`, if the result has one.
    public func column(_ name: String) -> Int? { columns.firstIndex(of: name) }

    /// The text of `column` in `row`; nil for NULL.
    public func string(_ row: Int, _ column: String) throws(PostgresError) -> String? {
        values[try index(row, column)]
    }

    /// The whole number in `column` of `row`; nil for NULL.
    public func int64(_ row: Int, _ column: String) throws(PostgresError) -> Int64? {
        guard let text = try string(row, column) else { return nil }
        guard let number = Int64(text) else {
            throw PostgresError(
                kind: .result, operation: operation, message: "column \(column) of row \(row) is not a whole number",
                hint: "select an integer (or cast it: \(column)::bigint), or read it with string(_:_:)")
        }
        return number
    }

    /// Whether `column` of `row` is NULL.
    public func isNull(_ row: Int, _ column: String) throws(PostgresError) -> Bool {
        values[try index(row, column)] == nil
    }

    /// Where the value of `column` in `row` is kept.
    private func index(_ row: Int, _ column: String) throws(PostgresError) -> Int {
        guard let position = self.column(column) else {
            throw PostgresError(
                kind: .result, operation: operation, message: "the result has no column \(column)",
                hint: "its columns are \(columns.isEmpty ? "none" : columns.joined(separator: ", "))")
        }
        guard row >= 0, row < count else {
            throw PostgresError(kind: .result, operation: operation, message: "row \(row) asked of a result of \(count) rows")
        }
        return row * columns.count + position
    }
}
