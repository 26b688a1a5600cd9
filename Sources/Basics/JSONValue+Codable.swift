import Foundation

extension JSONValue: Codable {
    /// Decodes any JSON value, keeping integers apart from fractional numbers.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
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

    /// Parses JSON text strictly (duplicate keys are refused); the error says where and why.
    public static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(data)
    }
}
