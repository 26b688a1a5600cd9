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
        fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of the fields named `name`, ignoring case, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
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
