import Basics
import Engine
import HTTPServer

/// What `serve` and `signer` say: where they listen, what they offer, why they cannot start, and
/// that they stop. Addresses and notes go to standard output, the request log and stops to
/// standard error.
struct ServerView: Sendable {
    /// The command's name as its lines begin: `pipeline serve`, `pipeline signer`.
    let name: String

    /// The server cannot start (with how to fix it, when known).
    func failure(_ message: String, hint: String? = nil, context: CommandContext) {
        context.output.failure(message, hint: hint)
    }

    /// The port is taken or the address cannot be had.
    func cannotListen(_ error: any Error, context: CommandContext) {
        failure("\(error)", hint: "pick another --port, or 0 for a free one", context: context)
    }

    /// The server listens at `url`.
    func listening(_ url: String, context: CommandContext) {
        context.output.out("\(name): listening on \(url)\n")
    }

    /// `serve`: where tus clients upload.
    func tusEndpoint(_ url: String, context: CommandContext) {
        context.output.out("tus endpoint: \(url)\n")
    }

    /// `serve`: whether clients on this machine may hand files over as open descriptors.
    func handoff(_ state: LocalEngine.HandoffState, context: CommandContext) {
        switch state {
        case .offered(let socket): context.output.out("handoff: \(socket.printable) (files from this machine come as open descriptors)\n")
        case .unavailable(let reason): context.output.out("handoff: off, every byte comes over HTTP: \(reason.printable)\n")
        case .off: break
        }
    }

    /// `serve` without `--auth-key`.
    func unauthenticated(context: CommandContext) {
        context.output.out("authentication: off (unsigned requests are accepted; pass --auth-key to require signatures)\n")
    }

    /// `signer` names no Auth Key.
    func anyAuthKey(context: CommandContext) {
        context.output.error("\(name): warning: neither --auth-key nor the policy's auth_key names an Auth Key: params for any key a caller sends are signed with this secret\n")
    }

    /// One line of the request log.
    func log(_ line: String, output: Output) {
        output.error(line + "\n")
    }

    /// A signal stops the server.
    func stopping(_ signal: Int32, context: CommandContext) {
        context.output.error("\(name): stopping (signal \(signal))\n")
    }
}
