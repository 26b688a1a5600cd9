import Basics
import Synchronization

/// Decodes a robot's `Parameters` from a step's options, as they are (JSON values, no text in
/// between). It knows the robot's name, for messages, and notes what it is asked, so a test can
/// tell that every declared option is read.
struct StepOptionsDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let robot: String
    let reads: ReadKeys?

    /// The keys a decoding asked for, present or not.
    final class ReadKeys: Sendable {
        let keys = Mutex<Set<String>>([])
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `type` decoded from `options`; any failure is an error naming the option.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from options: [String: JSONValue], robot: String, reads: ReadKeys? = nil
    ) throws(RobotOptionError) -> Value {
        do {
            return try Value(from: StepOptionsDecoder(value: .object(options), codingPath: [], robot: robot, reads: reads))
        } catch let error as RobotOptionError {
            throw error
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw RobotOptionError(context.codingPath.first?.stringValue, "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' \(context.debugDescription)")
        } catch let DecodingError.keyNotFound(key, _) {
            throw RobotOptionError(key.stringValue, "'\(key.stringValue)' must be given")
        } catch {
            throw RobotOptionError(nil, "the options cannot be read: \(error)")
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let object = value.objectValue else { throw mismatch("an object") }
        return KeyedDecodingContainer(Keyed<Key>(object: object, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let items = value.arrayValue else { throw mismatch("a list") }
        return Unkeyed(items: items, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    fileprivate func nested(_ value: JSONValue, at key: any CodingKey) -> StepOptionsDecoder {
        StepOptionsDecoder(value: value, codingPath: codingPath + [key], robot: robot, reads: reads)
    }

    fileprivate func mismatch(_ expected: String) -> DecodingError {
        DecodingError.typeMismatch(JSONValue.self, .init(codingPath: codingPath, debugDescription: "must be \(expected), not \(RobotOptionError.described(value))"))
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: [String: JSONValue]
        let decoder: StepOptionsDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool {
            decoder.reads?.keys.withLock { _ = $0.insert(key.stringValue) }
            return object[key.stringValue] != nil
        }

        func decodeNil(forKey key: Key) throws -> Bool { !contains(key) || object[key.stringValue] == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard contains(key), let value = object[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
            }
            if let raw = value as? T { return raw }
            return try T(from: decoder.nested(value, at: key))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder.nested(try decode(JSONValue.self, forKey: key), at: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder.nested(try decode(JSONValue.self, forKey: key), at: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder.nested(try decode(JSONValue.self, forKey: key), at: key) }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let items: [JSONValue]
        let decoder: StepOptionsDecoder
        var currentIndex = 0
        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        mutating func next() throws -> StepOptionsDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(JSONValue.self, .init(codingPath: codingPath, debugDescription: "has too few items"))
            }
            defer { currentIndex += 1 }
            return decoder.nested(items[currentIndex], at: Index(intValue: currentIndex))
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let item = try next()
            if let raw = item.value as? T { return raw }
            return try T(from: item)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }

    private struct Single: SingleValueDecodingContainer {
        let decoder: StepOptionsDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool { decoder.value == .null }
        func decode(_ type: Bool.Type) throws -> Bool { try typed(decoder.value.boolValue, "true or false") }
        func decode(_ type: String.Type) throws -> String { try typed(decoder.value.stringValue, "a string") }
        func decode(_ type: Double.Type) throws -> Double { try typed(decoder.value.doubleValue, "a number") }

        func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
        func decode(_ type: Int.Type) throws -> Int { try integer() }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
        func decode(_ type: UInt.Type) throws -> UInt { try integer() }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

        /// A whole number that fits `Integer` (`2.0` counts as 2).
        private func integer<Integer: FixedWidthInteger>() throws -> Integer {
            let number = decoder.value.intValue.flatMap { Integer(exactly: $0) } ?? decoder.value.doubleValue.flatMap { Integer(exactly: $0) }
            return try typed(number, "a whole number from \(Integer.min) to \(Integer.max)")
        }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if let raw = decoder.value as? T { return raw }
            return try T(from: decoder)
        }

        private func typed<T>(_ value: T?, _ expected: String) throws -> T {
            guard let value else { throw decoder.mismatch(expected) }
            return value
        }
    }

    private struct Index: CodingKey {
        let intValue: Int?
        var stringValue: String { String(intValue ?? 0) }
        init(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }
}
