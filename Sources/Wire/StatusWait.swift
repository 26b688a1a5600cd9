/// A status request the engine may hold until its Assembly moves on, so a client sees the end of
/// an Assembly the moment it comes instead of at its next poll. The engine names, on every
/// Assembly status it answers, the longest it holds one; a client that read it sends the seconds
/// it will wait on `GET /assemblies/{id}`. Servers that never name it are polled as usual.
public enum StatusWait {
    /// The header, in both directions: the engine's longest hold, or the client's wish, in whole seconds.
    public static let header = "Pipeline-Status-Wait"
    /// The longest the engine holds a status request: under the read timeouts of common proxies
    /// (nginx's default is 60 s).
    public static let longest = 20

    /// The seconds a header value asks for, when it is a whole number from 1 to `longest` (digits
    /// only; spaces and tabs around it are not part of it).
    public static func seconds(_ value: String?) -> Int? {
        guard let value else { return nil }
        let digits = value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        guard (1...2).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let seconds = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return (1...longest).contains(seconds) ? seconds : nil
    }
}
