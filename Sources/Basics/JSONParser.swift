import Foundation

/// JSON text that could not be read: what is wrong, and at which line and column.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of problems, with a stable code for API answers.
    public enum Kind: Sendable, Equatable {
        /// Not JSON at this point.
        case syntax
        /// An object names `key` twice (compared after unescaping).
        case duplicateKey(String)
        /// Nested deeper than the parser allows.
        case tooDeep
    }

    /// What is wrong.
    public var kind: Kind
    /// A sentence saying what is wrong.
    public var message: String
    /// The 1-based line.
    public var line: Int
    /// The 1-based column (in bytes).
    public var column: Int

    /// `DUPLICATE_KEY` for a repeated key, `INVALID_JSON` otherwise.
    public var code: String {
        if case .duplicateKey = kind { return "DUPLICATE_KEY" }
        return "INVALID_JSON"
    }

    /// "line L, column C: message".
    public var description: String { "line \(line), column \(column): \(message)" }
}

/// A strict JSON reader (RFC 8259): duplicate keys, trailing text, invalid UTF-8, lone
/// surrogates and nesting deeper than `maxDepth` are refused; integers that fit stay integers.
public struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maxDepth = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one JSON value that fills all of `data` (whitespace aside).
    public static func parse(_ data: some ContiguousBytes) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(raw.bindMemory(to: UInt8.self))
            do throws(JSONParseError) {
                parser.skipWhitespace()
                let value = try parser.value()
                parser.skipWhitespace()
                guard parser.index == parser.bytes.count else { throw parser.failure("unexpected text after the JSON value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func failure(_ message: String, kind: JSONParseError.Kind = .syntax, at position: Int? = nil) -> JSONParseError {
        let end = min(position ?? index, bytes.count)
        var line = 1
        var lineStart = 0
        for offset in 0..<end where bytes[offset] == UInt8(ascii: "\n") {
            line += 1
            lineStart = offset + 1
        }
        return JSONParseError(kind: kind, message: message, line: line, column: end - lineStart + 1)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("unexpected end of the text") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw failure("unexpected character")
        }
        index += count
        return value
    }

    private mutating func value() throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw failure("unexpected end of the text: a value is missing") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character: a value is expected")
        }
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw failure("nested deeper than \(Self.maxDepth) levels", kind: .tooDeep) }
        index += 1
        skipWhitespace()
    }

    private mutating func object() throws(JSONParseError) -> JSONValue {
        try enter()
        var members: [String: JSONValue] = [:]
        if current == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            guard current == UInt8(ascii: "\"") else { throw failure("a member name in double quotes is expected") }
            let keyStart = index
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("':' is expected after the member name") }
            index += 1
            skipWhitespace()
            let member = try value()
            guard members.updateValue(member, forKey: key) == nil else {
                throw failure("the key '\(key)' appears twice in one object", kind: .duplicateKey(key), at: keyStart)
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            default:
                throw failure("',' or '}' is expected")
            }
        }
    }

    private mutating func array() throws(JSONParseError) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        if current == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default:
                throw failure("',' or ']' is expected")
            }
        }
    }

    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { throw failure("a digit is expected") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard try requireDigits() else { throw failure("a digit is expected after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard try requireDigits() else { throw failure("a digit is expected in the exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else { throw failure("the number is out of range", at: start) }
        return .double(double)
    }

    private mutating func skipDigits() {
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
    }

    private mutating func requireDigits() throws(JSONParseError) -> Bool {
        let start = index
        skipDigits()
        return index > start
    }

    private mutating func string() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 { index += 1 }
        if current == UInt8(ascii: "\"") {
            let text = try decodeUTF8(start..<index)
            index += 1
            return text
        }
        var scratch = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard let byte = current else { throw failure("the string is not closed") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try decodeUTF8(scratch)
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &scratch)
            case 0..<0x20:
                throw failure("control characters must be escaped in strings")
            default:
                scratch.append(byte)
                index += 1
            }
        }
    }

    private mutating func escape(into scratch: inout [UInt8]) throws(JSONParseError) {
        guard let byte = current else { throw failure("the string is not closed") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("a high surrogate must be followed by a low surrogate")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a high surrogate must be followed by a low surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("a low surrogate without a high one")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("not a Unicode scalar") }
            scratch.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw failure("unknown escape '\\\(Character(Unicode.Scalar(byte)))'")
        }
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("\\u needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("\\u needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private func decodeUTF8(_ range: Range<Int>) throws(JSONParseError) -> String {
        guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            throw failure("the string is not valid UTF-8", at: range.lowerBound)
        }
        return text
    }

    private func decodeUTF8(_ scratch: [UInt8]) throws(JSONParseError) -> String {
        guard let text = String(validating: scratch, as: UTF8.self) else { throw failure("the string is not valid UTF-8") }
        return text
    }
}
