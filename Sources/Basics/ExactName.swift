/// A name known by its exact UTF-8 bytes: a source file's path, or a path made from one, as a key.
/// Swift's `String` equates, hashes and orders canonically equivalent spellings as one (`Crème`
/// composed and decomposed), which on disk are two files; keyed by this, they stay two, and they
/// sort by their bytes (`ByteOrder`).
public struct ExactName: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name, as given.
    public let text: String

    /// The name `text`, byte for byte.
    public init(_ text: String) {
        self.text = text
    }

    /// A name written in code.
    public init(stringLiteral text: String) {
        self.init(text)
    }

    /// The same bytes.
    public static func == (lhs: ExactName, rhs: ExactName) -> Bool {
        ByteOrder.same(lhs.text, rhs.text)
    }

    /// Earlier in byte order.
    public static func < (lhs: ExactName, rhs: ExactName) -> Bool {
        ByteOrder.precedes(lhs.text, rhs.text)
    }

    /// Hashes the bytes (and their count), like `==`.
    public func hash(into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { Array(text.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
        hasher.combine(text.utf8.count)
    }

    /// The name.
    public var description: String { text }
}
