/// `--shard auto`: which shard this CI job is, from the CI's own variables, so a matrix or a
/// parallel job needs no arithmetic in its configuration.
enum CIShard {
    /// One CI's variables: the index (0- or 1-based) and the total.
    struct Source {
        var name: String
        var index: String
        var total: String?
        var zeroBased: Bool
    }

    /// The CIs known, in the order they are tried. A Kubernetes indexed Job has no total: give it
    /// as `--shard auto/N`. `PIPELINE_SHARD_INDEX`/`PIPELINE_SHARD_TOTAL` serve any other CI.
    static let sources = [
        Source(name: "GitLab", index: "CI_NODE_INDEX", total: "CI_NODE_TOTAL", zeroBased: false),
        Source(name: "CircleCI", index: "CIRCLE_NODE_INDEX", total: "CIRCLE_NODE_TOTAL", zeroBased: true),
        Source(name: "Buildkite", index: "BUILDKITE_PARALLEL_JOB", total: "BUILDKITE_PARALLEL_JOB_COUNT", zeroBased: true),
        Source(name: "pipeline", index: "PIPELINE_SHARD_INDEX", total: "PIPELINE_SHARD_TOTAL", zeroBased: false),
        Source(name: "a Kubernetes indexed Job", index: "JOB_COMPLETION_INDEX", total: nil, zeroBased: true),
    ]

    /// The most shards a run is split into.
    static let largest = 100_000

    /// The shard (1-based index, total) and a sentence naming the variables it came from; nil
    /// when no CI's variables are set (or a total is missing).
    static func detect(_ environment: [String: String], total given: Int?) -> (index: Int, count: Int, origin: String)? {
        for source in sources {
            // Bounded first: a CI's index is small, and a huge one must not overflow the arithmetic.
            guard let text = environment[source.index], let raw = Int(text), (0...Self.largest).contains(raw) else { continue }
            let total = given ?? source.total.flatMap { environment[$0] }.flatMap { Int($0) }
            guard let total, (1...Self.largest).contains(total) else { continue }
            let index = source.zeroBased ? raw + 1 : raw
            guard (1...total).contains(index) else { continue }
            let variables = [source.index] + (given == nil ? source.total.map { [$0] } ?? [] : [])
            return (index, total, "\(source.name)'s " + variables.joined(separator: " and "))
        }
        return nil
    }
}
