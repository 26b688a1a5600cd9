import Foundation

/// A response: status, headers looked up case-insensitively, and the body.
public struct HTTPResponse: Sendable {
    /// The status code of the final response (interim 1xx responses are skipped).
    public var status: Int
    /// The final response's header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders, body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as text, for error messages (cut to `limit` characters).
    public func bodyText(limit: Int = 500) -> String {
        let text = String(decoding: body.prefix(limit * 4), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}

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

    /// Parses one raw header line (`Name: value`); other lines are ignored.
    mutating func parse(line: String) {
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { return }
        fields.append((name, value))
    }
}
