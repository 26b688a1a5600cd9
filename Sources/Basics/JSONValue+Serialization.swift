import Foundation

extension JSONValue {
    /// Deterministic JSON text: keys sorted by their UTF-8 bytes, no insignificant whitespace
    /// unless `pretty`, which indents by two spaces.
    public func serialized(pretty: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output, pretty: pretty, depth: 0)
        return String(decoding: output, as: UTF8.self)
    }

    /// The compact text's bytes, as `serialized()` writes them (for a file).
    public var compactData: Data {
        var output: [UInt8] = []
        write(to: &output, pretty: false, depth: 0)
        return Data(output)
    }

    /// Appends the value's text to `output`, as `serialized` writes it, nested `depth` levels deep.
    public func write(to output: inout [UInt8], pretty: Bool, depth: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value): output.append(contentsOf: Self.format(value).utf8)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            guard !elements.isEmpty else { return output.append(contentsOf: "[]".utf8) }
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, pretty: pretty, depth: depth + 1)
                element.write(to: &output, pretty: pretty, depth: depth + 1)
            }
            Self.newline(&output, pretty: pretty, depth: depth)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { return output.append(contentsOf: "{}".utf8) }
            output.append(UInt8(ascii: "{"))
            let sorted = members.sorted { ByteOrder.precedes($0.key, $1.key) }
            for (index, (key, value)) in sorted.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, pretty: pretty, depth: depth + 1)
                Self.writeString(key, to: &output)
                output.append(contentsOf: (pretty ? ": " : ":").utf8)
                value.write(to: &output, pretty: pretty, depth: depth + 1)
            }
            Self.newline(&output, pretty: pretty, depth: depth)
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends a line break and the indentation of `depth` when `pretty`.
    public static func newline(_ output: inout [UInt8], pretty: Bool, depth: Int) {
        guard pretty else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    private static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value.rounded() == value && abs(value) < 1e15 {
            return String(Int(value))
        }
        return "\(value)"
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `value` as a JSON string literal, a '#' after a '#' escaped so no CI runner reads a command.
    public static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        let plain = value.utf8.withContiguousStorageIfAvailable { bytes in
            var special = false
            var previous: UInt8 = 0
            // 0xC2 and 0xE2 lead C1 controls and the bidirectional controls, which are escaped too.
            for byte in bytes {
                special = special || byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0xC2 || byte == 0xE2
                    || (byte == UInt8(ascii: "#") && previous == byte)
                previous = byte
            }
            if !special { output.append(contentsOf: bytes) }
            return !special
        }
        if plain == true {
            output.append(UInt8(ascii: "\""))
            return
        }
        var previous: Unicode.Scalar = "\0"
        for scalar in value.unicodeScalars {
            defer { previous = scalar }
            // A '#' right after a '#' as `\u0023`: CI runners take `##[` and `##vso[` anywhere in a
            // line as a command, and a JSON reader reads the escape as the same '#'.
            if scalar == "#" && previous == "#" {
                output.append(contentsOf: "\\u0023".utf8)
                continue
            }
            // Controls no terminal should be handed: C1, and the bidirectional overrides and isolates.
            if (0x80...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value) {
                output.append(contentsOf: "\\u".utf8)
                for shift in stride(from: 12, through: 0, by: -4) { output.append(hexDigits[Int((scalar.value >> UInt32(shift)) & 0xF)]) }
                continue
            }
            guard scalar.isASCII else {
                output.append(contentsOf: String(scalar).utf8)
                continue
            }
            let byte = UInt8(scalar.value)
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "\n"): output.append(contentsOf: "\\n".utf8)
            case UInt8(ascii: "\r"): output.append(contentsOf: "\\r".utf8)
            case UInt8(ascii: "\t"): output.append(contentsOf: "\\t".utf8)
            case 0..<0x20, 0x7F:
                output.append(contentsOf: "\\u00".utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
