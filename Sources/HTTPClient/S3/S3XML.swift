import Foundation

/// The few values read from S3's XML answers (error codes, upload ids, listings): the text of
/// named elements, entities decoded. S3's answers are flat enough that no XML library is needed.
enum S3XML {
    /// The text of every `<name>…</name>` in `xml`, in order.
    static func values(_ name: String, in xml: String) -> [String] {
        var found: [String] = []
        var rest = Substring(xml)
        while let open = rest.range(of: "<\(name)>") {
            guard let close = rest.range(of: "</\(name)>", range: open.upperBound..<rest.endIndex) else { break }
            found.append(decode(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// The text of the first `<name>…</name>` in `xml`.
    static func value(_ name: String, in xml: String) -> String? { values(name, in: xml).first }

    /// The raw inner XML of every `<name>…</name>` block (such as each `<Contents>` of a listing).
    static func blocks(_ name: String, in xml: String) -> [String] {
        var found: [String] = []
        var rest = Substring(xml)
        while let open = rest.range(of: "<\(name)>") {
            guard let close = rest.range(of: "</\(name)>", range: open.upperBound..<rest.endIndex) else { break }
            found.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// `text` with the XML entities S3 writes (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&#N;`, `&#xN;`) decoded.
    static func decode(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var output = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            output += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";") else { return output + rest }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": output += "&"
            case "lt": output += "<"
            case "gt": output += ">"
            case "quot": output += "\""
            case "apos": output += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = Unicode.Scalar(number) { output.unicodeScalars.append(scalar) } else { output += "&\(entity);" }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return output + rest
    }

    /// `text` escaped for an element's content.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}
