import Basics
import Foundation
import Wire

/// An Assembly notification as a receiver got it: the `transloadit` field (the status JSON, as
/// sent) and its `signature`, from the form's fields or from a saved request body.
public struct ReceivedNotification: Sendable {
    /// The status JSON exactly as sent (what the signature covers).
    public var payload: String
    /// The `signature` field, when there was one.
    public var signature: String?

    /// A notification of these fields.
    public init(payload: String, signature: String?) {
        (self.payload, self.signature) = (payload, signature)
    }

    /// Why a body holds no notification to check.
    public enum Unreadable: Error, Sendable, Equatable {
        /// No `transloadit` field.
        case noNotification
        /// `transloadit` or `signature` more than once: receivers that take the first and those
        /// that take the last would act on different notifications, so neither is taken.
        case repeated(field: String)
        /// A multipart part whose `Content-Disposition` does not parse, or names the part twice
        /// (two `name` parameters, `name` and `name*`, or two such headers): receivers would read
        /// different names from it, so the body is not taken.
        case ambiguousPart
    }

    /// The notification in a saved request body: `multipart/form-data` (the boundary from
    /// `contentType`, else from the body's first line), `application/x-www-form-urlencoded`, or a
    /// JSON object of the two fields.
    public init(body: Data, contentType: String? = nil) throws(Unreadable) {
        let text = String(decoding: body, as: UTF8.self)
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let fields: [(name: String, value: String)]
        if let boundary = Self.boundary(contentType) ?? Self.leadingBoundary(text) {
            fields = try Self.multipart(text, boundary: boundary)
        } else if trimmed.hasPrefix("{"), let object = JSONValue.parseIfValid(Data(trimmed.utf8))?.objectValue {
            // The strict JSON parser refuses a repeated key.
            fields = object.compactMap { key, value in value.stringValue.map { (key, $0) } }
        } else {
            fields = Self.urlencoded(trimmed)
        }
        for name in ["transloadit", "signature"] where fields.filter({ $0.name == name }).count > 1 { throw .repeated(field: name) }
        guard let payload = fields.first(where: { $0.name == "transloadit" })?.value else { throw .noNotification }
        self.init(payload: payload, signature: fields.first { $0.name == "signature" }?.value)
    }

    /// Whether the signature is the payload's under `secret` (`NotificationSignature`).
    public func isSigned(with secret: String) -> Bool {
        signature.map { NotificationSignature.verify(payload, signature: $0, secret: secret) } ?? false
    }

    /// The status it announces; nil when the payload is not a status.
    public var status: AssemblyStatusDocument? { AssemblyStatusDocument.decode(Data(payload.utf8)) }

    private static func boundary(_ contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.trimmingCharacters(in: .whitespaces)
            guard pair.lowercased().hasPrefix("boundary=") else { continue }
            return String(pair.dropFirst("boundary=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    private static func leadingBoundary(_ text: String) -> String? {
        // In bytes: a CR LF is one character to a String.
        let bytes = Array(text.utf8)
        guard bytes.starts(with: [45, 45]), let end = bytes.firstIndex(where: { $0 == 13 || $0 == 10 }) else { return nil }
        let boundary = String(decoding: bytes[2..<end], as: UTF8.self)
        return boundary.isEmpty || boundary.contains(" ") ? nil : boundary
    }

    /// Each part's name and value: the value is every byte between the part's blank line and the
    /// line break before the next delimiter (found in bytes: a CR LF is one character to a String).
    private static func multipart(_ text: String, boundary: String) throws(Unreadable) -> [(name: String, value: String)] {
        let body = Array(text.utf8), delimiter = Array(("--" + boundary).utf8)
        var starts: [Int] = []
        var rest = body[...]
        while let found = rest.firstRange(of: delimiter) {
            starts.append(found.lowerBound)
            rest = body[found.upperBound...]
        }
        var fields: [(name: String, value: String)] = []
        for (start, next) in zip(starts, starts.dropFirst()) {
            let part = body[(start + delimiter.count)..<next]
            guard let blank = part.firstRange(of: [13, 10, 13, 10]) ?? part.firstRange(of: [10, 10]) else { continue }
            let headers = String(decoding: part[..<blank.lowerBound], as: UTF8.self)
            guard let name = try partName(headers) else { continue }
            var value = part[blank.upperBound...]
            if value.last == 10 { value = value.dropLast() }
            if value.last == 13 { value = value.dropLast() }
            fields.append((String(name), String(decoding: value, as: UTF8.self)))
        }
        return fields
    }

    private static func urlencoded(_ text: String) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        // `;` separates pairs too for some parsers: a field after one is a field to them.
        for pair in text.split(whereSeparator: { $0 == "&" || $0 == ";" }) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
            fields.append((decode(parts[0]), parts.count > 1 ? decode(parts[1]) : ""))
        }
        return fields
    }

    /// The part's name: the `name` (or RFC 5987 `name*`) parameter of its one `Content-Disposition`
    /// header, nil without one. Any doubt about it (a header that does not parse, two names, two
    /// such headers, a folded header line) makes the body unreadable.
    private static func partName(_ headers: String) throws(Unreadable) -> String? {
        var disposition: Substring?
        for line in headers.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            // An obsolete folded line continues a header for some parsers and is a header of its own to others.
            if line.first == " " || line.first == "\t" { throw .ambiguousPart }
            guard let colon = line.firstIndex(of: ":"),
                  line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "content-disposition" else { continue }
            guard disposition == nil else { throw .ambiguousPart }
            disposition = line[line.index(after: colon)...]
        }
        guard let disposition else { return nil }
        var name: String?
        for (index, parameter) in try dispositionParameters(disposition).enumerated() {
            guard index > 0 else { continue }  // the disposition type
            let key = parameter.key.lowercased()
            guard key == "name" || key == "name*" else { continue }
            guard name == nil else { throw .ambiguousPart }
            name = key == "name" ? parameter.value : try extendedValue(parameter.value)
        }
        return name
    }

    /// The disposition type (as a key with an empty value) and each `key=value` parameter, split on
    /// `;` outside quotes; a value is a quoted string (with `\` escapes) or a token.
    private static func dispositionParameters(_ text: Substring) throws(Unreadable) -> [(key: String, value: String)] {
        var segments: [String] = [], current = "", quoted = false, escaped = false
        for character in text {
            if escaped { escaped = false } else if quoted && character == "\\" { escaped = true } else if character == "\"" { quoted.toggle() } else if character == ";" && !quoted {
                segments.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        guard !quoted, !escaped else { throw .ambiguousPart }
        segments.append(current)
        let type = segments[0].trimmingCharacters(in: .whitespaces)
        guard isToken(type) else { throw .ambiguousPart }
        var parameters: [(key: String, value: String)] = [(type, "")]
        for segment in segments.dropFirst() {
            let trimmed = segment.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "=") else { throw .ambiguousPart }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            let raw = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard isToken(key) else { throw .ambiguousPart }
            if isToken(raw) {
                parameters.append((key, raw))
            } else if raw.count >= 2, raw.first == "\"", raw.last == "\"" {
                var value = "", escaped = false
                for character in raw.dropFirst().dropLast() {
                    if escaped || character != "\\" {
                        // An unescaped quote inside would end the string early: not one quoted string.
                        if !escaped && character == "\"" { throw .ambiguousPart }
                        value.append(character)
                        escaped = false
                    } else {
                        escaped = true
                    }
                }
                guard !escaped else { throw .ambiguousPart }
                parameters.append((key, value))
            } else {
                throw .ambiguousPart
            }
        }
        return parameters
    }

    /// An RFC 2616 token: visible ASCII but separators.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 32 && $0.value < 127 && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains($0) }
    }

    /// An RFC 5987 value, `charset'language'percent-encoded`, decoded (UTF-8 or ISO-8859-1).
    private static func extendedValue(_ text: String) throws(Unreadable) -> String {
        let parts = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .ambiguousPart }
        var bytes: [UInt8] = []
        var rest = Array(parts[2].utf8)[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard rest.count >= 2, let decoded = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) else { throw .ambiguousPart }
            bytes.append(decoded)
            rest = rest.dropFirst(2)
        }
        switch parts[0].lowercased() {
        case "utf-8", "us-ascii":
            guard let value = String(validating: bytes, as: UTF8.self) else { throw .ambiguousPart }
            return value
        case "iso-8859-1":
            return String(bytes.map { Character(Unicode.Scalar($0)) })
        default:
            throw .ambiguousPart
        }
    }
}
