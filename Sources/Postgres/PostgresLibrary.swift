import CPostgres

/// libpq, loaded once per process when the first connection is made (the binary does not link it).
enum PostgresLibrary {
    /// The library's file name, as `apt-get install libpq5` installs it.
    static let name = PIPELINE_PQ_LIBRARY

    /// Why libpq could not be loaded; nil once it is.
    private static let failure: PostgresError? = failure(loading: name)

    /// Throws unless libpq is loaded (loading it the first time).
    static func require() throws(PostgresError) {
        if let failure { throw failure }
    }

    /// Loads the library called `name`: nil when it is loaded, else an error saying how to install
    /// it. Only tests name another library.
    static func failure(loading name: String) -> PostgresError? {
        var buffer = [CChar](repeating: 0, count: 512)
        guard pipeline_pq_load(name, &buffer, buffer.count) != 0 else { return nil }
        let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return PostgresError(
            kind: .libraryMissing, operation: "load \(name)", message: reason,
            hint: "a Postgres state needs libpq: install it with `apt-get install libpq5`")
    }
}
