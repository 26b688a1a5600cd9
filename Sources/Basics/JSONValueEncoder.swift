import Foundation

/// Encodes an `Encodable` value as a `JSONValue`, never as text: a Codable document is written
/// with `serialized()` (sorted keys, the project's escaping) as every other JSON the project writes.
/// Optionals left nil by `encodeIfPresent` are absent, as with Foundation's encoder.
public enum JSONValueEncoder {
    /// `value` as a JSON value; throws for a value that encodes nothing or a non-finite number.
    /// With `iso8601Dates`, a `Date` is written as state files write it (`2026-12-01T19:41:53Z`,
    /// `StateCoding.encoder`), else as Foundation's encoder writes it by default.
    public static func encode<Value: Encodable>(_ value: Value, iso8601Dates: Bool = false) throws -> JSONValue {
        let root = Node()
        try scalar(value, into: root, path: [], dates: iso8601Dates ? ISO8601DateFormatter() : nil)
        guard let built = root.value else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "\(Value.self) encoded no value"))
        }
        return built
    }
}

/// A value being built: a scalar, or an object or array whose members are still being filled in.
private final class Node {
    enum Content {
        case empty
        case scalar(JSONValue)
        case object([(String, Node)])
        case array([Node])
    }

    var content: Content = .empty

    var value: JSONValue? {
        switch content {
        case .empty: nil
        case .scalar(let value): value
        case .object(let members): .object(Dictionary(members.compactMap { key, node in node.value.map { (key, $0) } }, uniquingKeysWith: { _, last in last }))
        case .array(let elements): .array(elements.compactMap(\.value))
        }
    }

    func member(_ key: String) -> Node {
        let node = Node()
        if case .object(var members) = content { members.append((key, node)); content = .object(members) } else { content = .object([(key, node)]) }
        return node
    }

    func element() -> Node {
        let node = Node()
        if case .array(var elements) = content { elements.append(node); content = .array(elements) } else { content = .array([node]) }
        return node
    }

    var count: Int {
        if case .array(let elements) = content { return elements.count }
        return 0
    }
}

/// Writes one scalar into a node; shared by the containers.
private func scalar<Value: Encodable>(_ value: Value, into node: Node, path: [any CodingKey], dates: ISO8601DateFormatter?) throws {
    switch value {
    case let date as Date where dates != nil: node.content = .scalar(.string(dates?.string(from: date) ?? ""))
    case let flag as Bool: node.content = .scalar(.bool(flag))
    case let text as String: node.content = .scalar(.string(text))
    case let number as Double:
        guard number.isFinite else { throw EncodingError.invalidValue(number, .init(codingPath: path, debugDescription: "not a finite number")) }
        node.content = .scalar(.double(number))
    case let number as Float: try scalar(Double(number), into: node, path: path, dates: dates)
    case let number as Int: node.content = .scalar(.int(number))
    case let number as Int64: node.content = .scalar(.int(Int(number)))
    case let number as Int32: node.content = .scalar(.int(Int(number)))
    case let number as Int16: node.content = .scalar(.int(Int(number)))
    case let number as Int8: node.content = .scalar(.int(Int(number)))
    case let number as UInt8: node.content = .scalar(.int(Int(number)))
    case let number as UInt16: node.content = .scalar(.int(Int(number)))
    case let number as UInt32: node.content = .scalar(.int(Int(number)))
    case let number as UInt64:
        guard let fitting = Int(exactly: number) else { throw EncodingError.invalidValue(number, .init(codingPath: path, debugDescription: "too large")) }
        node.content = .scalar(.int(fitting))
    case let number as UInt:
        guard let fitting = Int(exactly: number) else { throw EncodingError.invalidValue(number, .init(codingPath: path, debugDescription: "too large")) }
        node.content = .scalar(.int(fitting))
    case let json as JSONValue: node.content = .scalar(json)
    default: try value.encode(to: TreeEncoder(node: node, codingPath: path, dates: dates))
    }
}

private struct TreeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    let dates: ISO8601DateFormatter?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath, dates: dates))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath, dates: dates)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(node: node, codingPath: codingPath, dates: dates) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]
    let dates: ISO8601DateFormatter?

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .scalar(.null) }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try scalar(value, into: node.member(key.stringValue), path: codingPath + [key], dates: dates)
    }

    mutating func nestedContainer<Nested: CodingKey>(keyedBy keyType: Nested.Type, forKey key: Key) -> KeyedEncodingContainer<Nested> {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key], dates: dates).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key], dates: dates).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.member("super"), codingPath: codingPath, dates: dates) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key], dates: dates) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    let dates: ISO8601DateFormatter?
    var count: Int { node.count }

    private var nextPath: [any CodingKey] { codingPath + [IndexKey(intValue: count)] }

    mutating func encodeNil() throws { node.element().content = .scalar(.null) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        let path = nextPath
        try scalar(value, into: node.element(), path: path, dates: dates)
    }

    mutating func nestedContainer<Nested: CodingKey>(keyedBy keyType: Nested.Type) -> KeyedEncodingContainer<Nested> {
        let path = nextPath
        return TreeEncoder(node: node.element(), codingPath: path, dates: dates).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return TreeEncoder(node: node.element(), codingPath: path, dates: dates).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return TreeEncoder(node: node.element(), codingPath: path, dates: dates)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    let dates: ISO8601DateFormatter?

    mutating func encodeNil() throws { node.content = .scalar(.null) }

    mutating func encode<Value: Encodable>(_ value: Value) throws { try scalar(value, into: node, path: codingPath, dates: dates) }
}

/// A key of an array's element, for coding paths.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init?(stringValue: String) { nil }
    init(intValue: Int) { self.intValue = intValue }
}
