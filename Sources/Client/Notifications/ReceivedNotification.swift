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
    }

    /// The notification in a saved request body: `multipart/form-data` (the boundary from
    /// `contentType`, else from the body's first line), `application/x-www-form-urlencoded`, or a
    /// JSON object of the two fields.
    public init(body: Data, contentType: String? = nil) throws(Unreadable) {
        let text = String(decoding: body, as: UTF8.self)
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let fields: [(name: String, value: String)]
        if let boundary = Self.boundary(contentType) ?? Self.leadingBoundary(text) {
            fields = Self.multipart(text, boundary: boundary)
        } else if trimmed.hasPrefix("{"), let object = (try? JSONValue.parse(Data(trimmed.utf8)))?.objectValue {
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
    private static func multipart(_ text: String, boundary: String) -> [(name: String, value: String)] {
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
            guard let name = headers.firstMatch(of: /(?i)name="([^"]*)"/)?.1 else { continue }
            var value = part[blank.upperBound...]
            if value.last == 10 { value = value.dropLast() }
            if value.last == 13 { value = value.dropLast() }
            fields.append((String(name), String(decoding: value, as: UTF8.self)))
        }
        return fields
    }

    private static func urlencoded(_ text: String) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
            fields.append((decode(parts[0]), parts.count > 1 ? decode(parts[1]) : ""))
        }
        return fields
    }
}
