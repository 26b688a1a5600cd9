/// Assembly ids as the API defines them: 32 lowercase hexadecimal characters (a UUID without
/// dashes). Anything else from a server or a file is refused before it names a path or a URL.
public enum AssemblyID {
    /// Whether `id` is a well-formed Assembly id.
    public static func isValid(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
