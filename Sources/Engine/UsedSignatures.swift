import Foundation

/// The signatures an engine took, kept until each expires so a captured request is refused: in
/// the data folder (`SignatureLedger`) or in the database engines share (`SharedSignatures`), so a
/// request replayed to another engine is refused too.
protocol UsedSignatures: Sendable {
    /// Records `signature` until `expires`; `false` when it was recorded before and has not expired.
    func insert(_ signature: String, expires: Date, now: Date) -> Bool
}

extension UsedSignatures {
    /// Records `signature` until `expires`, as of now.
    func insert(_ signature: String, expires: Date) -> Bool { insert(signature, expires: expires, now: Date()) }
}
