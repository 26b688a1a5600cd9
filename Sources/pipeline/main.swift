import Foundation
import CLI

// SIGINT and SIGTERM are taken by one thread from the start, so a server or a run hears every one.
SignalCenter.install()
// A peer that closes a pipe or socket early is an error to handle, not a reason to die.
signal(SIGPIPE, SIG_IGN)

exit(await PipelineCLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment, output: .standard))
