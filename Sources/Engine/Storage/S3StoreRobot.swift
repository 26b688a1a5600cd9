import Basics
import Foundation
import HTTPClient
import Spec

/// `/s3/store` against a real S3-compatible service: each file PUT (in a
/// multipart upload when large) at `path`, with `acl`, `headers`, `tags` and `check_integrity`;
/// reported with `url`/`ssl_url` under `url_prefix` and, with `sign_urls_for`, pre-signed
/// `signed_url`/`signed_ssl_url`.
struct S3StoreRobot: Sendable {
    let settings: S3StepSettings
    let parameters: S3Store.Parameters
    let http: HTTPClient

    /// The bucket's URL prefix for results: `url_prefix` (its `{bucket}` replaced), else the bucket's own.
    var urlPrefix: String {
        let prefix = (parameters.urlPrefix ?? settings.bucket.publicPrefix).replacingOccurrences(of: "{bucket}", with: settings.bucket.name)
        return prefix.hasSuffix("/") ? prefix : prefix + "/"
    }

    /// Stores `file` in the bucket and returns it with its URLs.
    func store(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> AssemblyFile {
        let key = try ExportRobot.expand(parameters.path, for: file, context: context)
        var sent: [(name: String, value: String)] = [("Content-Type", file.mime)]
        for header in parameters.headers {
            let value = try ExportRobot.substitute(header.value, for: file, context: context, option: "headers")
            if header.name.lowercased() == "content-type" { sent[0].value = value } else { sent.append((header.name, value)) }
        }
        if let acl = parameters.acl { sent.append(("x-amz-acl", acl)) }
        if !parameters.tags.isEmpty { sent.append(("x-amz-tagging", S3Encoding.canonicalQuery(parameters.tags.map { ($0.key, $0.value) }))) }
        let client = settings.client(http)
        let (path, size, checksums, headers) = (file.path, file.size, parameters.checkIntegrity, sent)
        let outcome = BlockingWait.result(isCanceled: context.isCanceled) {
            try await client.putFile(path, size: size, key: key, headers: headers, checksums: checksums)
        }
        switch outcome {
        case .success: break
        case .failure(is CancellationError): throw RobotError.canceled
        case .failure(let error): throw RobotError(code: .storeError, message: "cannot store '\(file.name)': \(S3StepSettings.message(error))")
        }
        var stored = file
        stored.id = AssemblyFile.newID()
        let url = urlPrefix + S3Encoding.path(key)
        stored.exportURL = url
        stored.exportSSLURL = url.hasPrefix("http://") ? "https://" + url.dropFirst(7) : url
        if let signedFor = parameters.signURLsFor {
            let presigner = S3Presigner(bucket: settings.bucket, credentials: settings.credentials)
            let now = Date()
            stored.signedURL = presigner.url(key: key, expires: signedFor, now: now)
            stored.signedSSLURL = presigner.url(key: key, expires: signedFor, now: now, scheme: "https")
        }
        return stored
    }
}

/// A `/s3/store` step: real where the step has credentials the engine knows, a key or a host
/// (`S3StepSettings`), emulated into `exports/` otherwise, decided file by file from the context.
struct S3StoreStep: FileRobot {
    let robot: String
    let parameters: S3Store.Parameters
    let http = HTTPClient()

    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        guard let settings = try S3StepSettings.resolve(robot: robot, parameters.connection, context: context) else {
            let emulated = ExportRobot(robot: robot, account: parameters.connection.credentials ?? "default", path: parameters.path)
            return [try emulated.export(file, context: context)]
        }
        return [try S3StoreRobot(settings: settings, parameters: parameters, http: http).store(file, context: context)]
    }
}

extension S3Store: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork {
        .eachFile(S3StoreStep(robot: robot, parameters: parameters))
    }
}
