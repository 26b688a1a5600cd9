import Basics
import HTTPClient
import Spec

/// Where a storage step's bucket is and what signs its requests: from the step's options
/// (`credentials`, `bucket`, `bucket_region`, `key`, `secret`, `session_token`, `host`, `no_vhost`),
/// the named credentials the engine has, and the step's inline secrets kept in memory.
struct S3StepSettings: Sendable {
    let bucket: S3Bucket
    let credentials: S3Credentials
    /// For a host the step names (not the operator's credentials): the addresses the engine may
    /// reach, as for `/http/import` (public ones, and this machine with `--allow-loopback-import`).
    var addressPolicy: AddressPolicy?

    /// The settings of a step of `robot`; nil when a store step names no credentials the engine
    /// has and no key or host (an export the engine then emulates).
    static func resolve(robot: String, _ given: S3ConnectionOptions, context: RobotContext) throws(RobotError) -> S3StepSettings? {
        let named = given.credentials
        let entry = named.flatMap(context.storage.entry)
        let isImport = StorageSteps.imports.contains(robot)
        let real = isImport || entry != nil || given.host != nil || given.key != nil || given.secret != nil
        guard real else { return nil }
        if entry == nil, given.key == nil {
            throw RobotError(code: .invalidStepParameter, message: named.map { missing($0) } ?? "\(robot) needs 'credentials' (a name the engine knows) or 'key' and 'secret'")
        }
        let inline = context.inlineSecrets
        guard let key = given.key ?? entry?.credentials.key, !key.isEmpty else {
            throw RobotError(code: .invalidStepParameter, message: "the step names no 'key' (nor 'credentials' that hold one)")
        }
        if given.secret == InlineSecrets.hidden, inline["secret"] == nil {
            throw RobotError(code: .invalidStepParameter, message: "the step's inline secret is kept in memory only and the engine restarted since; name credentials the engine holds (see 'pipeline serve --credentials') to resume such steps")
        }
        guard let secret = inline["secret"] ?? given.secret ?? entry?.credentials.secret, !secret.isEmpty else {
            throw RobotError(code: .invalidStepParameter, message: "the step names no 'secret' (nor 'credentials' that hold one)")
        }
        let token = inline["session_token"] ?? given.sessionToken.flatMap { $0 == InlineSecrets.hidden ? nil : $0 } ?? entry?.credentials.sessionToken
        guard let bucketName = given.bucket ?? entry?.bucket else {
            throw RobotError(code: .invalidStepParameter, message: "the step names no 'bucket'" + (named.map { " (and credentials '\($0)' hold none)" } ?? ""))
        }
        let region = given.bucketRegion ?? entry?.region ?? "us-east-1"
        let host = given.host ?? entry?.host
        // S3-compatible services on a host of their own usually serve buckets in the path.
        let pathStyle = given.noVhost ?? (host != nil && host != "s3.amazonaws.com")
        guard let bucket = S3Bucket(name: bucketName, region: region, host: host, pathStyle: pathStyle) else {
            throw RobotError(code: .invalidStepParameter, message: "'\(TerminalText.printable(String(bucketName.prefix(80))))' in '\(TerminalText.printable(region))'"
                + (host.map { " at '\(TerminalText.printable(String($0.prefix(80))))'" } ?? "") + " is no bucket, region and host S3 takes")
        }
        let policy = given.host == nil ? nil : AddressPolicy(allowsLoopback: context.limits.importsFromLoopback)
        return S3StepSettings(bucket: bucket, credentials: S3Credentials(key: key, secret: secret, sessionToken: token), addressPolicy: policy)
    }

    /// Why named credentials were not found, and where the engine looks.
    static func missing(_ name: String) -> String {
        let variable = StorageSteps.variablePrefix + StorageSteps.variableName(name)
        return "the engine has no credentials named '\(TerminalText.printable(String(name.prefix(100))))': set \(variable)_KEY and \(variable)_SECRET"
            + " (and _BUCKET, _REGION, _HOST as needed) where it runs, or give 'pipeline serve --credentials FILE'"
    }

    /// A client of the bucket, sending through `http`.
    func client(_ http: HTTPClient) -> S3Client {
        var client = S3Client(bucket: bucket, credentials: credentials, http: http)
        client.addressPolicy = addressPolicy
        return client
    }

    /// A message for `error`: S3's, which names the operation, never the credentials.
    static func message(_ error: any Error) -> String {
        (error as? S3Error)?.description ?? "\(error)"
    }
}
