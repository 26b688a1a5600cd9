import Foundation
import PipelineCLI

// A parent may start us with SIGINT/SIGTERM blocked; `pipeline serve` must still hear them.
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
pthread_sigmask(SIG_UNBLOCK, &signals, nil)

exit(await PipelineCLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment, output: .standard))
