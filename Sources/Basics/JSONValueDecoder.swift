import Foundation

/// Decodes a `Decodable` type from a `JSONValue` already parsed (strictly, by `JSONParser` or
/// `JSONObjectStream`): the value is read where it is, never written out as text and parsed again.
/// Numbers are read as Foundation's decoder reads them: an integer as any number type, a fraction
/// only as a floating-point one.
public enum JSONValueDecoder {
    /// `type` read from `value`; the error says where (its coding path) and why.
    public static func decode<Value: Decodable>(_ type: Value.Type, from value: JSONValue) throws -> Value {
        try Value(from: ValueDecoder(value: value, codingPath: []))
    }
}

/// The `Decoder` of one value.
private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(value: value, codingPath: codingPath) }
}

/// The error of a value that is not of the type asked for.
private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(value.serialized().prefix(40))"))
}

/// A key of an array's element, for coding paths.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// Reads scalars of a value; shared by the three containers. Every scalar type the standard
/// library decodes through a single-value container is read here (else its own decoding would ask
/// for itself again).
private protocol ScalarReading {
    var codingPath: [any CodingKey] { get }
}

extension ScalarReading {
    func scalar<Value: Decodable>(_ type: Value.Type, _ value: JSONValue, path: [any CodingKey]) throws -> Value {
        // A member kept as a JSONValue is the value itself (2.0 stays a fraction, no probing).
        if let same = value as? Value { return same }
        let read: Value? = switch value {
        case .bool(let flag): flag as? Value
        case .string(let text): text as? Value
        case .int(let number): Self.number(number, as: type)
        case .double(let number): number as? Value ?? (type is Float.Type ? Float(number) as? Value : Int(exactly: number).flatMap { Self.number($0, as: type) })
        case .null, .array, .object: nil
        }
        if let read { return read }
        guard !(type is Bool.Type || type is String.Type || type is Double.Type || type is Float.Type || Self.isInteger(type)) else {
            if value == .null { throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "null")) }
            throw mismatch(type, value, path)
        }
        return try Value(from: ValueDecoder(value: value, codingPath: path))
    }

    private static func isInteger(_ type: Any.Type) -> Bool {
        type is Int.Type || type is Int64.Type || type is Int32.Type || type is Int16.Type || type is Int8.Type
            || type is UInt.Type || type is UInt64.Type || type is UInt32.Type || type is UInt16.Type || type is UInt8.Type
    }

    /// `number` as the integer or floating-point `type`; nil when it does not fit or is no number type.
    private static func number<Value>(_ number: Int, as type: Value.Type) -> Value? {
        switch type {
        case is Int.Type: number as? Value
        case is Int64.Type: Int64(exactly: number) as? Value
        case is Int32.Type: Int32(exactly: number) as? Value
        case is UInt.Type: UInt(exactly: number) as? Value
        case is UInt64.Type: UInt64(exactly: number) as? Value
        case is UInt32.Type: UInt32(exactly: number) as? Value
        case is Int16.Type: Int16(exactly: number) as? Value
        case is Int8.Type: Int8(exactly: number) as? Value
        case is UInt16.Type: UInt16(exactly: number) as? Value
        case is UInt8.Type: UInt8(exactly: number) as? Value
        case is Double.Type: Double(number) as? Value
        case is Float.Type: Float(number) as? Value
        default: nil
        }
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol, ScalarReading {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member '\(key.stringValue)'"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try scalar(type, try member(key), path: codingPath + [key])
    }

    func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type, forKey key: Key) throws -> KeyedDecodingContainer<Nested> {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(members), codingPath: codingPath) }

    func superDecoder(forKey key: Key) throws -> any Decoder { ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key]) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer, ScalarReading {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) { (self.elements, self.codingPath) = (elements, codingPath) }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> (JSONValue, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(JSONValue.self, .init(codingPath: codingPath, debugDescription: "the array has no more elements"))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], codingPath + [IndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let (value, path) = try next()
        return try scalar(type, value, path: path)
    }

    mutating func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type) throws -> KeyedDecodingContainer<Nested> {
        let (value, path) = try next()
        return try ValueDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next()
        return try ValueDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next()
        return ValueDecoder(value: value, codingPath: path)
    }
}

private struct SingleContainer: SingleValueDecodingContainer, ScalarReading {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try scalar(type, value, path: codingPath) }
}
