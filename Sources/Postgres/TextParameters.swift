/// Statement parameters as libpq takes them: one buffer of NUL-terminated texts and a pointer to
/// each (a null pointer for SQL NULL), valid for the duration of `body`.
enum TextParameters {
    /// Calls `body` with the C form of `values`.
    static func with<Result>(_ values: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> Result) -> Result {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.reduce(0) { $0 + ($1?.utf8.count ?? 0) + 1 })
        var offsets: [Int?] = []
        offsets.reserveCapacity(values.count)
        for value in values {
            guard let value else {
                offsets.append(nil)
                continue
            }
            offsets.append(bytes.count)
            bytes.append(contentsOf: value.utf8)
            bytes.append(0)
        }
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
                    offset.flatMap { text.baseAddress?.advanced(by: $0) }
                }
                return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
            }
        }
    }

    /// The position (from 1, as in `$1`) of the first value holding a NUL character, which
    /// Postgres text cannot hold and C would cut short.
    static func firstWithNUL(_ values: [String?]) -> Int? {
        values.firstIndex { $0?.utf8.contains(0) == true }.map { $0 + 1 }
    }
}
