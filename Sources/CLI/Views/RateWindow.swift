/// The pace of a count that grows (bytes sent, Assemblies ended) over the last few seconds, not
/// since the start: once uploads stop, their rate is not an average that keeps falling. A count
/// that moves in rare steps (long encodes ending) is measured over its last few steps instead,
/// so its rate does not drop to nothing between them. Times are given, never read from a clock.
struct RateWindow {
    typealias Instant = ContinuousClock.Instant

    /// How far back the rate looks.
    let span: Duration
    /// The fewest steps the rate is measured over, looking further back than `span` when needed.
    let steps: Int
    /// The count at each change, oldest first: those in the span, the last before it, and at least `steps` in all.
    private var samples: [(at: Instant, value: Double)]
    /// When the count is expected to reach the total, as last projected; the ETA counts down to it.
    private var projected: Instant?
    /// Whether the count moved since the projection was made.
    private var moved = true

    /// A window starting at `value` at `start`.
    init(start: Instant, value: Double = 0, span: Duration = .seconds(5), steps: Int = 4) {
        self.span = span
        self.steps = steps
        samples = [(start, value)]
    }

    /// The count is `value` at `now` (a value that did not change is no sample).
    mutating func record(_ value: Double, at now: Instant) {
        guard let last = samples.last, value != last.value else { return }
        samples.append((max(now, last.at), value))
        moved = true
        // The oldest goes once the next one starts the span, and enough steps are left without it.
        while samples.count > steps + 1, samples[1].at <= now - span { samples.removeFirst() }
    }

    /// The latest count.
    var value: Double { samples.last?.value ?? 0 }

    /// Per second: from the last change at least `span` ago (or `steps` changes back, when that
    /// goes further) to now. Measured from a change, not from an arbitrary moment between two,
    /// a steady pace of rare steps reads the same at each step.
    func rate(at now: Instant) -> Double {
        guard let last = samples.last else { return 0 }
        let start = min(samples.lastIndex { $0.at <= now - span } ?? 0, max(0, samples.count - 1 - steps))
        let seconds = (now - samples[start].at).inSeconds
        return seconds > 0 ? (last.value - samples[start].value) / seconds : 0
    }

    /// How long until the count reaches `total`, or nil when it is there or does not move. Made
    /// from the rate when the count moves, it then counts down with the clock; only once it has
    /// run out with the count still short is it made again from the slower rate.
    mutating func eta(total: Double, at now: Instant) -> Duration? {
        let remaining = total - value
        guard remaining > 0 else { return nil }
        if moved || projected.map({ $0 <= now }) ?? true {
            let rate = rate(at: now)
            guard rate > 0 else {
                projected = nil
                return nil
            }
            // At most a hundred days: a crawl is not worth a number that overflows.
            projected = now + .seconds(min(remaining / rate, 8_640_000))
            moved = false
        }
        return projected.map { $0 - now }
    }
}
