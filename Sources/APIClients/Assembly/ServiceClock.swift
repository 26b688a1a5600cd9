import Foundation
import Wire
import Synchronization

/// The service's clock, as the `Date` header of its answers shows it: a container's or a
/// suspended VM's clock can be minutes or hours off, and the service judges `auth.expires` by
/// its own. Signatures are given expiries by the service's clock once an answer said it.
public final class ServiceClock: Sendable {
    private let measured = Mutex<Double?>(nil)
    /// This machine's time (a test's clock moves days at once).
    private let local: @Sendable () -> Date

    /// Creates a clock that knows nothing of the service's yet, comparing with `local` (this machine's time).
    public init(local: @escaping @Sendable () -> Date = { Date() }) {
        self.local = local
    }

    /// A difference below this many seconds is the header's resolution and the request's time, not skew.
    public static let tolerance = 2.0

    /// Seconds the service's clock is ahead of this machine's (negative: behind), beyond the
    /// tolerance; 0 when they agree or no answer has said.
    public var skew: Double {
        measured.withLock { value in value.map { abs($0) < Self.tolerance ? 0 : $0 } ?? 0 }
    }

    /// Whether an answer has carried a `Date` header yet.
    public var isKnown: Bool { measured.withLock { $0 != nil } }

    /// Takes the service's time from an answer's `Date` header (RFC 9110's IMF-fixdate), received now.
    public func observe(dateHeader: String?) {
        guard let dateHeader, let date = TusProtocol.parseHTTPDate(dateHeader) else { return }
        let received = local()
        measured.withLock { $0 = date.timeIntervalSince(received) }
    }

    /// Now, by this machine's clock.
    public var machineNow: Date { local() }

    /// Now, as the service's clock reads it.
    public var now: Date { local().addingTimeInterval(skew) }

    /// The skew in words, for a message about an expired signature.
    public var explanation: String {
        guard isKnown else { return "the service's clock is not known (its answers carry no Date header)" }
        let skew = skew
        guard skew != 0 else { return "this machine's clock agrees with the service's (by its Date header); the signature lifetime (auth.expires_in) may be too short" }
        return "the service's clock is \(Self.words(abs(skew))) \(skew > 0 ? "ahead of" : "behind") this machine's (by its Date header); set the machine's clock right (NTP), the run signs by the service's clock meanwhile"
    }

    /// `3 h 2 min`, `45 s`.
    static func words(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        if whole < 86400 { return "\(whole / 3600) h \(whole % 3600 / 60) min" }
        return "\(whole / 86400) d \(whole % 86400 / 3600) h"
    }
}
