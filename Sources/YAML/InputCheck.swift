import Foundation
import Basics

/// Byte-level checks done before libyaml sees the input: binary files and invalid UTF-8.
enum InputCheck {
    static func firstProblem(in data: Data, file: String) -> Diagnostic? {
        if let nul = data.firstIndex(of: 0) {
            return .error(
                "yaml.binary-file", "the file contains a NUL byte; it looks like a binary file, not YAML",
                at: location(ofByte: nul - data.startIndex, in: data, file: file),
                hint: "check that the path names the YAML manifest, not a data file")
        }
        if let bad = firstInvalidUTF8Byte(in: data) {
            return .error(
                "yaml.invalid-utf8", "the file is not valid UTF-8 (byte 0x\(String(data[data.startIndex + bad], radix: 16)))",
                at: location(ofByte: bad, in: data, file: file),
                hint: "save the file as UTF-8")
        }
        return nil
    }

    /// The offset of the first byte that does not start or continue a valid UTF-8 sequence.
    static func firstInvalidUTF8Byte(in data: Data) -> Int? {
        let bytes = [UInt8](data)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let length: Int
            switch byte {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return index
            }
            guard index + length <= bytes.count else { return index }
            for offset in 1..<max(1, length) where bytes[index + offset] & 0xC0 != 0x80 {
                return index
            }
            if length > 1, String(validating: bytes[index..<index + length], as: UTF8.self) == nil {
                return index
            }
            index += length
        }
        return nil
    }

    /// The 1-based line and character column of a byte offset.
    static func location(ofByte offset: Int, in data: Data, file: String) -> SourceLocation {
        let prefix = data.prefix(max(0, offset))
        var line = 1
        var lineStart = prefix.startIndex
        for index in prefix.indices where prefix[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        let column = String(decoding: prefix[lineStart...], as: UTF8.self).count + 1
        return SourceLocation(file: file, line: line, column: column)
    }

    /// The text of a 1-based line (lossy for invalid bytes).
    static func line(_ number: Int, of data: Data) -> String {
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard number >= 1, number <= lines.count else { return "" }
        return String(decoding: lines[number - 1], as: UTF8.self)
    }
}
