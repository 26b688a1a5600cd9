import Basics
import Foundation
import Wire

/// A response: status, headers looked up case-insensitively, and the body.
public struct HTTPResponse: Sendable {
    /// The status code of the final response (interim 1xx responses are skipped).
    public var status: Int
    /// The final response's header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data

    /// The seconds `Retry-After` asks to wait (its delay-seconds form); nil when absent, or not a
    /// finite number of 0 or more.
    public var retryAfter: Double? {
        headers["Retry-After"].flatMap(Double.init).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
    }

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders, body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body in one line for an error message: an HTML page's title (or first line of text),
    /// else the first non-empty line, cut to `limit` characters. Proxies' error pages stay short.
    public func bodyText(limit: Int = 200) -> String {
        let text = String(decoding: body.prefix(64 << 10), as: UTF8.self)
        var line: String
        if let title = Self.htmlTitle(text) {
            line = title
        } else {
            let plain = text.contains("<") && text.contains(">") ? Self.stripTags(text) : text
            line = plain.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty } ?? ""
        }
        line = TerminalText.printable(line)
        return line.count > limit ? String(line.prefix(limit)) + "…" : line
    }

    private static func htmlTitle(_ text: String) -> String? {
        guard let open = text.range(of: "<title>", options: .caseInsensitive),
              let close = text.range(of: "</title>", options: .caseInsensitive, range: open.upperBound..<text.endIndex) else { return nil }
        let title = text[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        return title.isEmpty ? nil : title
    }

    private static func stripTags(_ text: String) -> String {
        var result = ""
        var inTag = false
        for character in text {
            if character == "<" { inTag = true } else if character == ">" { inTag = false } else if !inTag { result.append(character) }
        }
        return result
    }
}
