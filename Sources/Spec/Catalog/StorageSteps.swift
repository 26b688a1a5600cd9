import Basics

/// Which storage steps the local engine runs against a real S3-compatible service and which it
/// emulates (copying into its `exports/` folder): shared by the engine and the plan's warning.
public enum StorageSteps {
    /// The robots that talk to a real service when a step gives it credentials or a host.
    public static let realStores: Set<String> = ["/s3/store"]
    /// The import robots the local engine runs (they always need credentials).
    public static let imports: Set<String> = ["/s3/import", "/minio/import"]
    /// Options whose values are secrets: never written to a record, a plan, results or a log.
    public static let secretParameters: Set<String> = ["secret", "session_token"]

    /// The prefix of the variables that hold named credentials: `PIPELINE_CREDENTIALS_<NAME>_KEY`.
    public static let variablePrefix = "PIPELINE_CREDENTIALS_"

    /// The variable name part for credentials `name`: uppercased, every other character `_`
    /// (`site-assets` → `SITE_ASSETS`).
    public static func variableName(_ name: String) -> String {
        String(name.uppercased().unicodeScalars.map { ("A"..."Z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" })
    }

    /// Whether the environment holds a key and secret for credentials `name`.
    public static func environmentHasCredentials(_ name: String, _ environment: [String: String]) -> Bool {
        let base = variablePrefix + variableName(name)
        return environment[base + "_KEY"]?.isEmpty == false && environment[base + "_SECRET"]?.isEmpty == false
    }

    /// Whether a step of `robot` with `options` stores for real: a real store robot given a
    /// `host`, an inline `key`, or `credentials` that `available` says the engine has.
    public static func storesForReal(robot: String, options: [String: JSONValue], available: (String) -> Bool) -> Bool {
        guard realStores.contains(robot) else { return false }
        if options["host"] != nil || options["key"] != nil || options["secret"] != nil { return true }
        guard let name = options["credentials"]?.stringValue else { return false }
        return available(name)
    }
}
