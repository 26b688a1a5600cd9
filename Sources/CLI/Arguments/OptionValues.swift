import Basics
import Spec

/// Typed option values, each checked in one place with one message per kind of value.
extension ParsedArguments {
    /// `--help` or `-h`: the command's help instead of its run.
    var wantsHelp: Bool { flag(CommandSpec.helpOption.name) }

    /// `--ca-cert`, for a command that declares it.
    var caCertFile: String? { declares(CommandSpec.caCertOption.name) ? value(CommandSpec.caCertOption.name) : nil }

    /// The variable `--secret-env` names, else `TRANSLOADIT_SECRET`.
    var secretVariable: String { value(CommandSpec.secretEnvOption.name) ?? "TRANSLOADIT_SECRET" }

    /// A whole number in `range`; `fallback` when the option is absent.
    func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws(UsageError) -> Int {
        guard let text = value(name) else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(name) needs a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", command: command)
        }
        return number
    }

    /// `--shard I/N` as (I, N) with 1 <= I <= N, or `auto` (`auto/N`) from the CI's variables;
    /// `nil` when the option is absent.
    func shard() throws(UsageError) -> (index: Int, count: Int)? {
        guard let text = value("shard") else { return nil }
        if text == "auto" || text.hasPrefix("auto/") {
            let total = text == "auto" ? nil : Int(text.dropFirst(5))
            guard text == "auto" || total.map({ $0 >= 1 }) == true else {
                throw UsageError("--shard auto/N needs a total N of at least 1, not '\(text)'", command: command)
            }
            guard let found = CIShard.detect(environment, total: total) else {
                let known = CIShard.sources.map { $0.index + ($0.total.map { "/" + $0 } ?? "") }.joined(separator: ", ")
                throw UsageError("--shard auto found no CI shard variables (\(known)); pass --shard I/N", command: command)
            }
            return (found.index, found.count)
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let index = parts[0], let count = parts[1], count >= 1, (1...count).contains(index) else {
            throw UsageError("--shard needs I/N with 1 <= I <= N, such as 2/4, not '\(text)'", command: command)
        }
        return (index, count)
    }

    /// For `--shard auto`: which variables the shard came from, to say so.
    var shardOrigin: String? {
        guard let text = value("shard"), text == "auto" || text.hasPrefix("auto/") else { return nil }
        return CIShard.detect(environment, total: text == "auto" ? nil : Int(text.dropFirst(5))).map { "shard \($0.index)/\($0.count) from \($0.origin)" }
    }

    /// A TCP port (0 picks a free one).
    func port(default fallback: UInt16) throws(UsageError) -> UInt16 {
        UInt16(try integer("port", in: 0...65535, default: Int(fallback)))
    }

    /// A duration such as `30m` or `1h30m`; `fallback` when the option is absent.
    func duration(_ name: String, default fallback: Duration) throws(UsageError) -> Duration {
        guard let text = value(name) else { return fallback }
        guard let duration = DurationText.parse(text) else {
            if DurationText.isTooLong(text) {
                throw UsageError("--\(name) needs a duration of \(DurationText.limit), not '\(text)'", command: command)
            }
            throw UsageError("--\(name) needs a duration such as 30m or 1h, not '\(text)'", command: command)
        }
        return duration
    }

    /// A duration, or nil for `off`.
    func durationOrOff(_ name: String, default fallback: Duration) throws(UsageError) -> Duration? {
        value(name) == "off" ? nil : try duration(name, default: fallback)
    }

    /// A size such as `5MiB` of at least `minimum` bytes; `nil` when the option is absent.
    func size(_ name: String, minimum: Int64) throws(UsageError) -> Int64? {
        guard let text = value(name) else { return nil }
        guard let size = ByteSize(parsing: text), size.bytes >= minimum else {
            throw UsageError("--\(name) needs a size of at least \(ByteSize(bytes: minimum)), such as 5MiB, not '\(text)'", command: command)
        }
        return size.bytes
    }
}

/// Limits shared by every command that takes the option.
enum OptionLimits {
    /// Files uploaded at once (`--parallel`), and Assemblies in flight (`--concurrency`).
    static let parallel = 1...64
}
