import Foundation
import PipelineCLI

exit(PipelineCLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment, output: .standard))
