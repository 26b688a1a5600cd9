import Foundation
import CLI

// SIGINT and SIGTERM are taken by one thread from the start, so a server or a run hears every one.
SignalCenter.install()
// A peer that closes a pipe or socket early is an error to handle, not a reason to die.
signal(SIGPIPE, SIG_IGN)

let status = await PipelineCLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment, output: .standard)
// Everything is written with write(2), so nothing is left in a buffer. `_exit` skips the runtime's
// exit handlers: after Ctrl-C, a robot thread of the embedded engine may still be waiting for its
// program, and tearing Foundation down under it would crash the process on its way out.
fflush(nil)
_exit(status)
