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

    /// The notification in a saved request body: `multipart/form-data` (the boundary from
    /// `contentType`, else from the body's first line), `application/x-www-form-urlencoded`, or a
    /// JSON object of the two fields; nil when it holds no `transloadit` field.
    public init?(body: Data, contentType: String? = nil) {
        let text = String(decoding: body, as: UTF8.self)
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let fields: [String: String]
        if let boundary = Self.boundary(contentType) ?? Self.leadingBoundary(text) {
            fields = Self.multipart(text, boundary: boundary)
        } else if trimmed.hasPrefix("{"), let object = (try? JSONValue.parse(Data(trimmed.utf8)))?.objectValue {
            fields = object.compactMapValues(\.stringValue)
        } else {
            fields = Self.urlencoded(trimmed)
        }
        guard let payload = fields["transloadit"] else { return nil }
        self.init(payload: payload, signature: fields["signature"])
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
    private static func multipart(_ text: String, boundary: String) -> [String: String] {
        let body = Array(text.utf8), delimiter = Array(("--" + boundary).utf8)
        var starts: [Int] = []
        var rest = body[...]
        while let found = rest.firstRange(of: delimiter) {
            starts.append(found.lowerBound)
            rest = body[found.upperBound...]
        }
        var fields: [String: String] = [:]
        for (start, next) in zip(starts, starts.dropFirst()) {
            let part = body[(start + delimiter.count)..<next]
            guard let blank = part.firstRange(of: [13, 10, 13, 10]) ?? part.firstRange(of: [10, 10]) else { continue }
            let headers = String(decoding: part[..<blank.lowerBound], as: UTF8.self)
            guard let name = headers.firstMatch(of: /(?i)name="([^"]*)"/)?.1 else { continue }
            var value = part[blank.upperBound...]
            if value.last == 10 { value = value.dropLast() }
            if value.last == 13 { value = value.dropLast() }
            fields[String(name)] = String(decoding: value, as: UTF8.self)
        }
        return fields
    }

    private static func urlencoded(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
