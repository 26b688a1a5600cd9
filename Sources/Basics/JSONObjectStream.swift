import Foundation

/// Reads the top-level object of a JSON file one member at a time through a bounded buffer: the
/// elements of one array member are handed over one by one and every other member whole, so a
/// file of any size (a results file of a million files) is read in the memory of its largest
/// element. Each piece is parsed by `JSONParser`, with its strictness; duplicate top-level keys
/// are refused.
public final class JSONObjectStream {
    /// Why the file could not be read as one JSON object.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What is wrong, with the byte offset where it was found.
        public var description: String
    }

    private let reader: BufferedFileReader
    private let maximumPiece: Int

    /// Opens `path` (a regular file); nil when it cannot be opened. No piece (a member, or an
    /// element of the streamed array) may exceed `maximumPiece` bytes.
    public init?(path: String, maximumPiece: Int = 256 << 20) {
        guard let reader = BufferedFileReader(path: path) else { return nil }
        self.reader = reader
        self.maximumPiece = maximumPiece
    }

    /// Reads the object: each element of the array member named `streamed` goes to `element`,
    /// every other member to `member`, in file order.
    public func read(streaming streamed: String, element: (JSONValue) throws -> Void, member: (String, JSONValue) throws -> Void) throws {
        var keys: Set<String> = []
        try expect(UInt8(ascii: "{"))
        if try peek() == UInt8(ascii: "}") {
            advance()
            return try finishDocument()
        }
        while true {
            guard case .string(let key) = try parse(try capture()) else { throw failure("an object key must be a string") }
            guard keys.insert(key).inserted else { throw failure("the key '\(key)' appears twice") }
            try expect(UInt8(ascii: ":"))
            if key == streamed {
                try readArray(element)
            } else {
                try member(key, try parse(try capture()))
            }
            let next = try peek()
            advance()
            if next == UInt8(ascii: "}") { return try finishDocument() }
            guard next == UInt8(ascii: ",") else { throw failure("expected ',' or '}' after a member") }
        }
    }

    private func readArray(_ element: (JSONValue) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        if try peek() == UInt8(ascii: "]") { return advance() }
        while true {
            try element(try parse(try capture()))
            let next = try peek()
            advance()
            if next == UInt8(ascii: "]") { return }
            guard next == UInt8(ascii: ",") else { throw failure("expected ',' or ']' after an array element") }
        }
    }

    private func finishDocument() throws {
        while let byte = try peekRaw() {
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { throw failure("unexpected text after the JSON object") }
            advance()
        }
    }

    /// The bytes of the next complete value (a string, number, literal, array or object).
    private func capture() throws -> [UInt8] {
        var piece: [UInt8] = []
        func take(_ byte: UInt8) throws {
            piece.append(byte)
            guard piece.count <= maximumPiece else { throw failure("a value is larger than \(maximumPiece) bytes") }
        }
        let first = try peek()
        guard first == UInt8(ascii: "\"") || first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            // A number or a literal: up to the next delimiter.
            while let byte = try peekRaw(), !Self.ends(byte) {
                advance()
                try take(byte)
            }
            return piece
        }
        // A string, array or object: up to its closing byte, scanned a buffer at a time.
        var depth = 0
        var inString = false, escaped = false
        while true {
            if reader.available.isEmpty, !(try fill()) { throw failure("the file ends inside a value") }
            let available = reader.available
            var taken = 0
            var complete = false
            available.withUnsafeBufferPointer { bytes in
                while taken < bytes.count {
                    let byte = bytes[taken]
                    taken += 1
                    if inString {
                        if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                    } else if byte == UInt8(ascii: "\"") {
                        inString = true
                    } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                        depth += 1
                    } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                        depth -= 1
                    }
                    if !inString, depth == 0 {
                        complete = true
                        return
                    }
                }
            }
            piece.append(contentsOf: available.prefix(taken))
            reader.consume(taken)
            guard piece.count <= maximumPiece else { throw failure("a value is larger than \(maximumPiece) bytes") }
            if complete { return piece }
        }
    }

    private static func ends(_ byte: UInt8) -> Bool {
        [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains(byte)
    }

    private func parse(_ piece: [UInt8]) throws -> JSONValue {
        do {
            return try JSONParser.parse(piece)
        } catch {
            throw failure("\(error)")
        }
    }

    private func expect(_ byte: UInt8) throws {
        guard try peek() == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
        advance()
    }

    /// The next byte that is not whitespace, left unread; an error at the end of the file.
    private func peek() throws -> UInt8 {
        while let byte = try peekRaw() {
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
            advance()
        }
        throw failure("the file ends early")
    }

    private func peekRaw() throws -> UInt8? {
        if reader.available.isEmpty, !(try fill()) { return nil }
        return reader.available.first
    }


    private func advance() {
        reader.consume(1)
    }

    private func fill() throws -> Bool {
        do {
            return try reader.fill()
        } catch {
            throw failure("cannot read: \(String(cString: strerror(error.code)))")
        }
    }

    private func failure(_ message: String) -> Failure {
        Failure(description: "byte \(reader.offset): \(message)")
    }
}
