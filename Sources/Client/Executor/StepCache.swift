import Basics
import Crypto
import Foundation
import Planning

/// The results earlier runs made, by what made them: a source file's SHA-256 and a step's digest
/// (`StepDigests`). Read from the last results file, whatever the files are called now and
/// whichever Assembly made them; a result that is gone (an engine file deleted, a temporary URL
/// expired and never downloaded) is not found, so its step is made again.
public struct StepCache: Sendable {
    /// A step's outcome for one source file.
    public struct Hit: Sendable, Equatable {
        /// Its results (none when the step declined the file).
        public var results: [RunResults.ResultFile]
        /// The file, when the step left it out (`ignore_errors`).
        public var leftOut: [RunResults.LeftOut]
        /// What the step's tool warned of.
        public var warnings: [RunResults.Warning]
    }

    private struct Key: Hashable {
        var file: SHA256Digest
        var step: String
    }

    private var hits: [Key: Hit] = [:]

    /// An empty cache (`--force`, or a first run).
    public init() {}

    /// Takes in the outcomes `entry` records for each of its files and steps whose results are all `available`.
    public mutating func add(_ entry: RunResults.Entry, available: ResultAvailability) {
        guard !entry.steps.isEmpty else { return }
        let outcomes = Self.outcomes(of: entry)
        for file in entry.files {
            for (step, digest) in entry.steps[ExactName(file.path)] ?? [:] {
                let outcome = outcomes[Source(file.path, step: step)] ?? Hit(results: [], leftOut: [], warnings: [])
                guard outcome.results.allSatisfy(available.holds) else { continue }
                hits[Key(file: file.digest, step: digest)] = outcome
            }
        }
    }

    /// A source file's path (byte for byte: `ExactName`) and a step's name.
    struct Source: Hashable {
        var path: ExactName?
        var step: String

        init(_ path: String?, step: String) {
            (self.path, self.step) = (path.map(ExactName.init(_:)), step)
        }
    }

    /// What `entry` holds for each source and step, gathered in one pass.
    static func outcomes(of entry: RunResults.Entry) -> [Source: Hit] {
        var outcomes: [Source: Hit] = [:]
        let empty = Hit(results: [], leftOut: [], warnings: [])
        for (step, files) in entry.results {
            for file in files { outcomes[Source(file.source, step: step), default: empty].results.append(file) }
        }
        for item in entry.leftOut { outcomes[Source(item.source, step: item.step), default: empty].leftOut.append(item) }
        for item in entry.warnings { outcomes[Source(item.source, step: item.step), default: empty].warnings.append(item) }
        return outcomes
    }

    /// The outcome of the step with `digest` for a file with content `file`, if one is known.
    public func hit(_ file: SHA256Digest, step digest: String) -> Hit? { hits[Key(file: file, step: digest)] }

    /// How many outcomes are known.
    public var count: Int { hits.count }
}
