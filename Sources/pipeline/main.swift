import Foundation
import PipelineCLI

// A parent may start us with SIGINT/SIGTERM blocked; `pipeline serve` must still hear them.
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
pthread_sigmask(SIG_UNBLOCK, &signals, nil)
// A peer that closes a pipe or socket early is an error to handle, not a reason to die.
signal(SIGPIPE, SIG_IGN)

exit(await PipelineCLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment, output: .standard))
