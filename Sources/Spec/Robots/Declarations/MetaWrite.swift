import Basics
import Foundation

/// `/meta/write`: writes `data_to_write` into each file without re-encoding it.
public enum MetaWrite: RobotDeclaration {
    public static let names = ["/meta/write"]
    public static let inputs = RobotInputs.kinds([.image, .video, .audio])
    public static let digest = RobotDigest.perSourceFile
    /// The most keys a step may write.
    public static let maxKeys = 64
    /// The longest value, in bytes, a step may write.
    public static let maxValueBytes = 8 << 10

    /// exiftool tags that act on files or on every tag rather than writing a value.
    public static let refusedTags: Set<String> = ["all", "directory", "symlink", "hardlink", "testname", "filename", "filemodifydate", "filecreatedate",
                                                  "fileaccessdate", "filepermissions", "fileuserid", "filegroupid", "tagsfromfile"]

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case dataToWrite = "data_to_write"
        }

        /// The tags and their values, sorted by tag.
        public let entries: [(key: String, value: String)]

        public init(from decoder: any Decoder) throws {
            guard let data = try OptionReader<Option>(decoder).value(.dataToWrite)?.objectValue, !data.isEmpty else {
                throw RobotOptionError(Option.dataToWrite, "'data_to_write' must be an object of metadata to write, such as {Copyright: \"© Example\"}")
            }
            guard data.count <= MetaWrite.maxKeys else {
                throw RobotOptionError(Option.dataToWrite, "'data_to_write' has \(data.count) keys; at most \(MetaWrite.maxKeys) are written")
            }
            entries = try data.sorted(by: { $0.key < $1.key }).map(Self.entry)
        }

        private static func entry(_ key: String, _ value: JSONValue) throws(RobotOptionError) -> (key: String, value: String) {
            guard key.range(of: #"^([A-Za-z0-9-]{1,32}:)?[A-Za-z][A-Za-z0-9_]{0,63}$"#, options: .regularExpression) != nil else {
                throw RobotOptionError(Option.dataToWrite, "'\(TerminalText.printable(String(key.prefix(80))))' in 'data_to_write' is not a tag name such as Copyright or XMP-dc:Creator")
            }
            // exiftool's pseudo-tags move, link or read files (FileName, Directory, SymLink, HardLink,
            // Geotag…), and 'all' writes every tag: none is metadata to write.
            let tag = (key.split(separator: ":").last.map(String.init) ?? key).lowercased()
            let group = key.contains(":") ? key.split(separator: ":").first.map { $0.lowercased() } ?? "" : ""
            guard !MetaWrite.refusedTags.contains(tag), !tag.hasPrefix("file"), !tag.hasPrefix("geo"), !["system", "file", "composite", "extra"].contains(group) else {
                throw RobotOptionError(Option.dataToWrite, "'\(key)' in 'data_to_write' is a file operation or a computed tag, not metadata; it cannot be written")
            }
            let text: String
            switch value {
            case .string(let string): text = string
            case .int(let number): text = String(number)
            case .double(let number): text = String(number)
            case .bool(let flag): text = String(flag)
            default: throw RobotOptionError(Option.dataToWrite, "'\(key)' in 'data_to_write' must be a string or a number")
            }
            guard text.utf8.count <= MetaWrite.maxValueBytes else {
                throw RobotOptionError(Option.dataToWrite, "'\(key)' in 'data_to_write' is \(text.utf8.count) bytes long; at most \(MetaWrite.maxValueBytes) are written")
            }
            guard !text.utf8.contains(0) else {
                throw RobotOptionError(Option.dataToWrite, "'\(key)' in 'data_to_write' holds a NUL character, which metadata cannot carry; remove it")
            }
            return (key, text)
        }
    }
}
