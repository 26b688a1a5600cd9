import Basics
import Client
import HTTPServer

/// What `notify` says: a notification's verdict (`verify`), and the wait for a run's
/// notifications (`receive`).
struct NotifyView: Sendable {
    /// Something failed, with a hint when there is one.
    func failure(_ message: String, hint: String? = nil, context: CommandContext) {
        context.output.failure(message, hint: hint)
    }

    /// `verify`: the body is larger than any notification.
    func tooLarge(_ source: String, limit: Int, context: CommandContext) {
        failure("\(source) holds more than \(ByteSize(bytes: Int64(limit))), more than any notification", hint: "pass the body of one notification request", context: context)
    }

    /// `verify`: the body is no notification the service sent.
    func unreadable(_ source: String, _ problem: ReceivedNotification.Unreadable, context: CommandContext) {
        switch problem {
        case .noNotification:
            failure(
                "\(source) holds no notification: no transloadit field",
                hint: "save the whole request body (multipart/form-data or urlencoded); for a multipart body without its first boundary line, pass --content-type", context: context)
        case .repeated(let field):
            failure(
                "\(source) holds more than one \(field) field: not a notification the service sent",
                hint: "receivers differ in which one they take (the first or the last); do not trust this request", context: context)
        case .ambiguousPart:
            failure(
                "\(source) holds a part whose Content-Disposition does not parse or names it twice: not a notification the service sent",
                hint: "receivers differ in the name they read from it; do not trust this request", context: context)
        }
    }

    /// `verify`: the notification carries no signature.
    func unsigned(_ source: String, context: CommandContext) {
        failure("the notification in \(source) has no signature field", hint: "an engine or service with an Auth Secret signs every notification", context: context)
    }

    /// `verify`: the signature is not the secret's.
    func forged(_ source: String, secretVariable: String, context: CommandContext) {
        failure("the signature of the notification in \(source) does not match the Auth Secret in $\(secretVariable)",
                hint: "check that the secret is the one of the Auth Key that created the Assembly; do not trust this notification", context: context)
    }

    /// `verify`: the notification is the service's, about this Assembly and state.
    func valid(assembly: String?, state: String?, context: CommandContext) {
        context.output.out("valid: Assembly \(assembly?.printable ?? "?") \((state ?? "?").printable)\n")
    }

    /// `receive`: the last results hold nothing left running.
    func nothingToWaitFor(_ manifest: String, context: CommandContext) {
        failure("nothing to wait for: the last results of \(manifest.printable) hold no Assembly left running",
                hint: "'pipeline run \(manifest.printable) --no-wait' leaves them, each job with a notify_url that reaches this receiver", context: context)
    }

    /// `receive`: the receiver cannot listen.
    func cannotListen(host: String, port: UInt16, _ error: any Error, context: CommandContext) {
        failure("cannot listen on \(host):\(port): \(error)", hint: "choose another --port, or stop what uses it", context: context)
    }

    /// `receive`: listening, for `count` Assemblies.
    func receiving(host: String, port: UInt16, count: Int, context: CommandContext) {
        context.output.error("pipeline: receiving on http://\(HTTPServer.urlHost(host)):\(port)/ the notifications of \(plural(count, "Assembly", "Assemblies"))\n")
    }

    /// `receive`: one line of the receiver's log.
    func log(_ line: String, output: Output) {
        output.error("pipeline: \(line)\n")
    }

    /// `receive`: some never reported within the timeout.
    func timedOut(_ waiting: Int, timeout: Duration, manifest: String, context: CommandContext) {
        failure("\(plural(waiting, "Assembly", "Assemblies")) did not report within \(DurationText.format(timeout))",
                hint: "'pipeline status \(manifest.printable) --wait' collects them by asking the service", context: context)
    }
}
