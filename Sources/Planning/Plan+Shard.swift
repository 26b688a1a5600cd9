extension Plan {
    /// Shard `index` (1-based) of `count`: a contiguous, deterministic share of the Assemblies.
    public func shard(_ index: Int, of count: Int) -> Plan {
        Plan(pipeline: pipeline, manifest: manifest, assemblies: Array(assemblies[Self.shardRange(index, of: count, total: assemblies.count)]))
    }

    /// Which of `total` Assemblies (in plan order) shard `index` of `count` takes: the planner
    /// decides shares with it before hashing, so a shard's plan is exactly its share of the whole.
    public static func shardRange(_ index: Int, of count: Int, total: Int) -> Range<Int> {
        ((index - 1) * total / count)..<(index * total / count)
    }
}
