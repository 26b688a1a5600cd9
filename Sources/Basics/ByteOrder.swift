import Foundation

/// Ordering of strings by their UTF-8 bytes: the one order paths and JSON keys are sorted in,
/// independent of locale and of Unicode normalization.
public enum ByteOrder {
    /// Whether `lhs` sorts before `rhs` when both are compared byte by byte.
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                let common = min(left.count, right.count)
                guard common > 0, let l = left.baseAddress, let r = right.baseAddress else { return left.count < right.count }
                let order = memcmp(l, r, common)
                return order != 0 ? order < 0 : left.count < right.count
            }
        }
        if let result = fast ?? nil { return result }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// Whether two strings have the same UTF-8 bytes. Swift's `==` equates canonically equivalent
    /// strings ("café" composed and decomposed), which name two different files.
    public static func same(_ lhs: String, _ rhs: String) -> Bool {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                left.count == right.count && (left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
        if let result = fast ?? nil { return result }
        return lhs.utf8.elementsEqual(rhs.utf8)
    }
}
