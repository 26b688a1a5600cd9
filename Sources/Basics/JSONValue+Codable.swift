import Foundation

extension JSONValue: Codable {
    /// Decodes any JSON value, keeping integers apart from fractional numbers.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = Self.probe(Bool.self, container) {
            self = .bool(value)
        } else if let value = Self.probe(Int.self, container) {
            self = .int(value)
        } else if let value = Self.probe(Double.self, container) {
            self = .double(value)
        } else if let value = Self.probe(String.self, container) {
            self = .string(value)
        } else if let value = Self.probe([JSONValue].self, container) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The value as `type` when it is one; nil when it is not. Any failure means "not this type":
    /// Foundation's decoder says so with errors of its own, internal types (an `Int` asked of
    /// `1.5`), and the object decoding tried last reports what fits nothing.
    private static func probe<Value: Decodable>(_ type: Value.Type, _ container: any SingleValueDecodingContainer) -> Value? {
        do { return try container.decode(type) } catch { return nil }
    }

    /// Encodes the value as itself.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// `value` as Codable's encoder writes it; nil when it cannot be encoded.
    public static func encoding<Value: Encodable>(_ value: Value) -> JSONValue? {
        do { return try JSONParser.parse(try JSONEncoder().encode(value)) } catch { return nil }
    }

    /// `data` parsed when it is JSON; nil when it is not (a server's body that is text or HTML:
    /// the caller then says what it expected).
    public static func parseIfValid(_ data: Data) -> JSONValue? {
        do { return try JSONParser.parse(data) } catch { return nil }
    }

    /// Parses JSON text strictly (duplicate keys are refused); the error says where and why.
    public static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(data)
    }
}
