import Basics
import Foundation
import HTTPClient
import Spec

/// `/s3/import` (from AWS, or the host of named credentials) and `/minio/import` (from the step's
/// `host`): the object at each `path`, or the
/// objects below a path that ends in `/` (or names no object), their folders too with
/// `recursive`, paged by `files_per_page` and `page_number` as the service does.
struct S3ImportRobot: Sendable {
    let settings: S3StepSettings
    let selection: S3ImportSelection
    let http = HTTPClient()

    /// The work of an import step of `robot`, from the bucket `connection` names.
    static func work(robot: String, connection: S3ConnectionOptions, selection: S3ImportSelection) -> RobotWork {
        .allFiles { _, context throws(RobotError) in
            guard let settings = try S3StepSettings.resolve(robot: robot, connection, context: context) else {
                throw RobotError(code: .invalidStepParameter, message: "\(robot) needs credentials")
            }
            return try S3ImportRobot(settings: settings, selection: selection).importFiles(context: context)
        }
    }

    /// Fetches the objects the paths name, in key order per path.
    func importFiles(context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        let client = settings.client(http)
        var objects: [S3Object] = []
        for path in selection.paths { objects += try list(path, client: client, context: context) }
        if selection.recursive {
            let (page, perPage) = (selection.pageNumber, selection.filesPerPage)
            objects = Array(objects.dropFirst((page - 1) * perPage).prefix(perPage))
        }
        let limit = context.limits.importBytes
        if let large = objects.first(where: { $0.size > limit }) {
            throw RobotError(code: .importFileError, message: "'\(TerminalText.printable(large.key))' is \(large.size) bytes, more than the engine imports (pipeline serve --max-import-size)")
        }
        return try Robots.parallel(objects) { object throws(RobotError) in try fetch(object, client: client, context: context) }
    }

    /// The objects `path` names: itself when it is an object's key, else those below it.
    private func list(_ path: String, client: S3Client, context: RobotContext) throws(RobotError) -> [S3Object] {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        let outcome = BlockingWait.result(isCanceled: context.isCanceled) { [recursive = selection.recursive] () async throws -> [S3Object] in
            if !trimmed.isEmpty, !trimmed.hasSuffix("/"), let object = try await client.head(trimmed) { return [object] }
            let prefix = trimmed.isEmpty || trimmed.hasSuffix("/") ? trimmed : trimmed + "/"
            var found: [S3Object] = []
            var token: String?
            repeat {
                let page = try await client.list(prefix: prefix, delimiter: recursive ? nil : "/", token: token)
                found += page.objects.filter { !$0.key.hasSuffix("/") }
                token = page.nextToken
            } while token != nil && found.count < 100_000
            return found
        }
        switch outcome {
        case .success(let objects): return objects
        case .failure(is CancellationError): throw RobotError.canceled
        case .failure(let error): throw RobotError(code: .importFileError, message: "cannot list '\(TerminalText.printable(path))': \(S3StepSettings.message(error))")
        }
    }

    private func fetch(_ object: S3Object, client: S3Client, context: RobotContext) throws(RobotError) -> AssemblyFile {
        guard !context.isCanceled() else { throw RobotError.canceled }
        let slot = try ResultSlot(name: "import", in: context.folder)
        let limit = context.limits.importBytes
        let outcome = BlockingWait.result(isCanceled: context.isCanceled) { try await client.getFile(object.key, to: slot.path, maxBytes: limit) }
        do throws(RobotError) {
            switch outcome {
            case .success(let response):
                let name = object.key.split(separator: "/").last.map(String.init) ?? "file"
                let named = try slot.renamed(to: name)
                let type = response.headers["Content-Type"].map { String($0.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces).lowercased() }
                return named.imported(mime: type, meta: ["s3_key": .string(object.key), "s3_bucket": .string(settings.bucket.name)])
            case .failure(is CancellationError): throw RobotError.canceled
            case .failure(let error): throw RobotError(code: .importFileError, message: "cannot import: \(S3StepSettings.message(error))")
            }
        } catch {
            slot.remove()
            throw error
        }
    }
}

extension S3Import: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork {
        S3ImportRobot.work(robot: robot, connection: parameters.connection, selection: parameters.selection)
    }
}

extension MinioImport: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork {
        S3ImportRobot.work(robot: robot, connection: parameters.connection, selection: parameters.selection)
    }
}
