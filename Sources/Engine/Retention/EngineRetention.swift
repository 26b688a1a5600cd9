/// How long `pipeline serve` keeps what ended Assemblies leave behind (`--retention`,
/// `--record-retention`): the hosted service deletes temporary results after 24 hours.
public struct EngineRetention: Sendable, Equatable {
    /// How long after an Assembly ends its uploads and results are kept.
    public var files: Duration
    /// How long a record whose files went is kept; nil keeps it for good.
    public var records: Duration?

    /// The service's habit: files for 24 hours, records (compact) for 30 days.
    public init(files: Duration = .seconds(24 * 3600), records: Duration? = .seconds(30 * 24 * 3600)) {
        (self.files, self.records) = (files, records)
    }

    /// How often the sweep looks: a tenth of the files' window, between a second and ten minutes.
    var sweepInterval: Duration { min(max(files / 10, .seconds(1)), .seconds(600)) }

    /// How often records are looked at for removal (it lists every record): at most hourly.
    var recordSweepInterval: Duration { min(max((records ?? .seconds(3600)) / 10, .seconds(1)), .seconds(3600)) }
}
