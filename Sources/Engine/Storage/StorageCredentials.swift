import Basics
import Foundation
import HTTPClient
import Spec

/// The named credentials the engine's storage robots can use (the service's `credentials: NAME`):
/// from `serve --credentials FILE` and from the variables `PIPELINE_CREDENTIALS_<NAME>_KEY`,
/// `_SECRET` and the optional `_BUCKET`, `_REGION`, `_HOST` and `_SESSION_TOKEN`. A file's set
/// wins over the variables of the same name. Printing them never shows a secret.
public struct StorageCredentials: Sendable, CustomStringConvertible {
    /// One named set: what a step's `credentials` stands for.
    public struct Entry: Sendable, Equatable {
        /// The key and secret.
        public var credentials: S3Credentials
        /// The bucket, unless the step names one.
        public var bucket: String?
        /// The bucket's region, unless the step names one.
        public var region: String?
        /// An S3-compatible service's host, unless the step names one.
        public var host: String?

        /// Creates a set.
        public init(credentials: S3Credentials, bucket: String? = nil, region: String? = nil, host: String? = nil) {
            self.credentials = credentials
            self.bucket = bucket
            self.region = region
            self.host = host
        }
    }

    private let file: [String: Entry]
    private let environment: [String: String]

    /// Credentials from `file` (sets by name) and the `PIPELINE_CREDENTIALS_*` variables of `environment`.
    public init(file: [String: Entry] = [:], environment: [String: String]) {
        self.file = file
        self.environment = environment.filter { $0.key.hasPrefix(StorageSteps.variablePrefix) }
    }

    /// No credentials at all.
    public static let none = StorageCredentials(environment: [:])

    /// The set named `name`, if the file or the variables hold one.
    public func entry(_ name: String) -> Entry? {
        if let entry = file[name] { return entry }
        let base = StorageSteps.variablePrefix + StorageSteps.variableName(name)
        guard let key = value(base + "_KEY"), let secret = value(base + "_SECRET") else { return nil }
        return Entry(
            credentials: S3Credentials(key: key, secret: secret, sessionToken: value(base + "_SESSION_TOKEN")),
            bucket: value(base + "_BUCKET"), region: value(base + "_REGION"), host: value(base + "_HOST"))
    }

    /// Whether a set named `name` is there.
    public func has(_ name: String) -> Bool { entry(name) != nil }

    private func value(_ variable: String) -> String? {
        environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The names known (never their secrets).
    public var description: String {
        let names = Set(file.keys).union(environment.keys.compactMap { variable -> String? in
            guard variable.hasSuffix("_KEY") else { return nil }
            return String(variable.dropFirst(StorageSteps.variablePrefix.count).dropLast(4))
        })
        return "storage credentials: " + (names.isEmpty ? "none" : names.sorted().joined(separator: ", "))
    }

    /// Reads a credentials file: a JSON or YAML-as-JSON object of sets by name, each with `key`,
    /// `secret` and optional `bucket`, `region` (or `bucket_region`), `host` and `session_token`.
    /// The error names the file and the set, never a value.
    public static func parse(_ json: JSONValue, file: String) throws(CredentialsFileError) -> [String: Entry] {
        guard let sets = json.objectValue else { throw CredentialsFileError(file: file, problem: "it must be an object of credentials by name") }
        var entries: [String: Entry] = [:]
        for (name, value) in sets {
            guard name.range(of: #"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"#, options: .regularExpression) != nil else {
                throw CredentialsFileError(file: file, problem: "'\(TerminalText.printable(String(name.prefix(60))))' is no name of letters, digits, '.', '-' and '_'")
            }
            guard let fields = value.objectValue else { throw CredentialsFileError(file: file, problem: "'\(name)' must be an object") }
            let known: Set<String> = ["key", "secret", "bucket", "region", "bucket_region", "host", "session_token"]
            if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
                throw CredentialsFileError(file: file, problem: "'\(name)' has '\(TerminalText.printable(String(unknown.prefix(60))))', which is none of \(known.sorted().joined(separator: ", "))")
            }
            for (field, value) in fields where value.stringValue == nil {
                throw CredentialsFileError(file: file, problem: "'\(name).\(field)' must be a string")
            }
            guard let key = fields["key"]?.stringValue, !key.isEmpty, let secret = fields["secret"]?.stringValue, !secret.isEmpty else {
                throw CredentialsFileError(file: file, problem: "'\(name)' needs a 'key' and a 'secret'")
            }
            entries[name] = Entry(
                credentials: S3Credentials(key: key, secret: secret, sessionToken: fields["session_token"]?.stringValue),
                bucket: fields["bucket"]?.stringValue, region: (fields["region"] ?? fields["bucket_region"])?.stringValue, host: fields["host"]?.stringValue)
        }
        return entries
    }
}

/// A credentials file that cannot be used: which file, and why (never a value from it).
public struct CredentialsFileError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// What is wrong.
    public var problem: String

    /// Creates an error.
    public init(file: String, problem: String) {
        self.file = file
        self.problem = problem
    }

    /// "credentials file 'x': …".
    public var description: String { "credentials file '\(file)': \(problem)" }
}
