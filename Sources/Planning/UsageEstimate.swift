import Basics

/// What a plan will do, from the plan alone: per job and in all, the files and bytes going in
/// and the robot executions by robot. Each step is counted once per file it is given (a step
/// that uses another is given what that one made, taken as one file per file), except the
/// robots that make one file of all they are given (archives), counted once per Assembly. A job
/// that names a Template by id has steps the plan cannot see: its executions are unknown.
public struct UsageEstimate: Sendable, Equatable {
    /// One job's share.
    public struct Job: Sendable, Equatable {
        public var name: String
        public var assemblies: Int
        public var files: Int
        public var bytes: Int64
        /// Robot -> executions; `nil` when the job's steps are not in the plan.
        public var executions: [String: Int]?
    }

    public var jobs: [Job]

    /// The robots that make one file of all their inputs.
    static let bundling: Set<String> = ["/file/compress"]

    /// The estimate of `plan`.
    public init(_ plan: Plan) {
        var byJob: [String: Job] = [:]
        for assembly in plan.assemblies {
            var job = byJob[assembly.job] ?? Job(name: assembly.job, assemblies: 0, files: 0, bytes: 0, executions: [:])
            job.assemblies += 1
            job.files += assembly.files.count
            job.bytes += assembly.bytes
            if let steps = Self.steps(of: assembly.instructions), job.executions != nil {
                for (robot, count) in Self.executions(steps, files: assembly.files.count) { job.executions?[robot, default: 0] += count }
            } else {
                job.executions = nil
            }
            byJob[assembly.job] = job
        }
        jobs = plan.jobs.compactMap { byJob[$0] }
    }

    /// Executions by robot over every job; `nil` when a job's are unknown.
    public var executions: [String: Int]? {
        var total: [String: Int] = [:]
        for job in jobs {
            guard let executions = job.executions else { return nil }
            total.merge(executions, uniquingKeysWith: +)
        }
        return total
    }

    /// The estimate as it goes in a plan's `summary.usage`.
    public var json: JSONValue {
        func executions(_ counts: [String: Int]?) -> JSONValue { counts.map { .object($0.mapValues { .int($0) }) } ?? .null }
        return .object([
            "jobs": .object(Dictionary(uniqueKeysWithValues: jobs.map { job in
                (job.name, JSONValue.object([
                    "assemblies": .int(job.assemblies), "files": .int(job.files), "bytes": .int(Int(job.bytes)),
                    "robot_executions": executions(job.executions),
                ]))
            })),
            "robot_executions": executions(self.executions),
        ])
    }

    /// A job's steps: its own, or its Template's when the plan holds the Template's content.
    public static func steps(of instructions: JSONValue) -> [String: JSONValue]? {
        if let steps = instructions["steps"]?.objectValue { return steps }
        return instructions["template"]?["content"]?["steps"]?.objectValue
    }

    /// How many times each robot runs for an Assembly of `files` files.
    static func executions(_ steps: [String: JSONValue], files: Int) -> [String: Int] {
        var made: [String: Int] = [":original": files]
        var counts: [String: Int] = [:]
        // Steps in an order where each comes after what it uses; a cycle or unknown use counts as the files.
        var remaining = steps.keys.sorted()
        while !remaining.isEmpty {
            let ready = remaining.first { name in uses(steps[name]).allSatisfy { made[$0] != nil || steps[$0] == nil } } ?? remaining[0]
            remaining.removeAll { $0 == ready }
            let robot = steps[ready]?["robot"]?.stringValue ?? "unknown"
            let given = uses(steps[ready]).reduce(0) { $0 + (made[$1] ?? files) }
            let runs = Self.bundling.contains(robot) ? 1 : (uses(steps[ready]).isEmpty ? 1 : given)
            counts[robot, default: 0] += runs
            made[ready] = runs
        }
        return counts
    }

    /// The step names a step uses (`use: name`, a list, or `{steps: [...]}` forms).
    private static func uses(_ step: JSONValue?) -> [String] {
        guard let use = step?["use"] else { return [] }
        if let name = use.stringValue { return [name] }
        if let names = use.arrayValue { return names.compactMap { $0.stringValue ?? $0["name"]?.stringValue } }
        if let names = use["steps"]?.arrayValue { return names.compactMap { $0.stringValue ?? $0["name"]?.stringValue } }
        return []
    }
}
