import Foundation

/// Header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable {
    /// The fields in the order received.
    public private(set) var fields: [(name: String, value: String)] = []

    /// Creates headers.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// The value of the first field named `name`, ignoring case.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of the fields named `name`, ignoring case, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Field names are ASCII tokens (RFC 9110), so case is ASCII case: compared byte by byte,
    /// without Foundation's Unicode-aware comparison.
    static func sameName(_ one: String, _ other: String) -> Bool {
        one.utf8.count == other.utf8.count && one.utf8.elementsEqual(other.utf8) { a, b in
            a == b || (a ^ b == 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
        }
    }

    /// Parses one raw header line (`Name: value`); other lines are ignored.
    public mutating func parse(line: String) {
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { return }
        fields.append((name, value))
    }
}
