import Wire

/// How a request's body is delimited, judged before anything is read: a request whose framing
/// two parties could read differently (RFC 9112 section 6.3) is refused and its connection
/// closed, so no request can hide inside another's body.
enum RequestFraming {
    /// Why the head's framing is refused; nil when it is unambiguous.
    static func problem(_ headers: HTTPHeaders) -> String? {
        let lengths = headers.values("Content-Length")
        let encodings = headers.values("Transfer-Encoding")
        if !encodings.isEmpty, !lengths.isEmpty { return "a request may not have both Content-Length and Transfer-Encoding" }
        if lengths.count > 1 { return "a request may have one Content-Length" }
        if let length = lengths.first, length.isEmpty || !length.utf8.allSatisfy({ (48...57).contains($0) }) {
            return "Content-Length must be a whole number of bytes"
        }
        if encodings.count > 1 || encodings.first.map({ $0.lowercased() != "chunked" }) == true {
            return "the only Transfer-Encoding accepted is a single 'chunked'"
        }
        return nil
    }
}
