import APIClients
import Basics

/// How `upload` shows what it sent: a line per upload for people, or one JSON document (`--json`);
/// failures are said on standard error either way. Chosen once from the arguments.
protocol UploadView: Sendable {
    /// Every file's outcome, in the order given.
    func show(_ outcomes: [(path: String, result: Result<UploadResult, any Error>)], context: CommandContext)
}

extension UploadView {
    /// The uploads could not go on at all; `unreachable` when the endpoint answered nothing.
    func failure(_ error: any Error, unreachable: Bool, context: CommandContext) {
        context.output.failure("\(error)", hint: unreachable ? "check that --endpoint names a running tus server" : nil)
    }
}

/// Each upload's path and URL, a tab between, on standard output.
struct HumanUploadView: UploadView {
    func show(_ outcomes: [(path: String, result: Result<UploadResult, any Error>)], context: CommandContext) {
        for (path, result) in outcomes {
            switch result {
            case .success(let upload): context.output.out("\(path)\t\(upload.url)\n")
            case .failure(let error): context.output.failure("\(path): \(error)")
            }
        }
    }
}

/// `{"uploads": [...], "failed": [...]}` on standard output.
struct JSONUploadView: UploadView {
    func show(_ outcomes: [(path: String, result: Result<UploadResult, any Error>)], context: CommandContext) {
        var uploaded: [JSONValue] = []
        var failed: [JSONValue] = []
        for (path, result) in outcomes {
            switch result {
            case .success(let upload):
                uploaded.append(.object([
                    "path": .string(path), "url": .string(upload.url), "size": .int(Int(upload.size)),
                    "resumed_from": .int(Int(upload.resumedFrom)),
                ]))
            case .failure(let error):
                failed.append(.object(["path": .string(path), "error": .string("\(error)")]))
                context.output.failure("\(path): \(error)")
            }
        }
        context.output.out(JSONValue.object(["uploads": .array(uploaded), "failed": .array(failed)]).serialized(pretty: true) + "\n")
    }
}
