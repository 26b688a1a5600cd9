import Basics
import Crypto
import Foundation
import Postgres
import Synchronization

/// The Postgres database engines share their state in: a pool of connections, the schema brought
/// up to date at start, and one listening connection that hands each `NOTIFY` to the part of the
/// engine it concerns (a held status request, the run queue, an upload's holder).
final class SharedState: Sendable {
    /// The channels engines tell each other on.
    enum Channel: String, CaseIterable, Sendable {
        /// An Assembly's phase moved (payload: its id): held status requests wake.
        case assemblyMoved = "pipeline_assembly_moved"
        /// An Assembly is ready to run, or a turn came free: engines try to claim one.
        case runnable = "pipeline_runnable"
        /// A request asks the holder of an upload to let go of it (payload: the upload's id).
        case releaseUpload = "pipeline_release_upload"
    }

    /// The connections requests use.
    let pool: PostgresPool
    /// This engine among those sharing the database (a claim's holder).
    let instance = RandomID.hex32()
    private let address: PostgresAddress
    private let handlers = Mutex<[Channel: Callback<String>]>([:])
    /// Work the listening thread runs now and then (`periodically`), each with its interval and last run.
    private let chores = Mutex<[(every: Duration, last: ContinuousClock.Instant, work: Callback<Void>)]>([])
    private let stopping = Atomic<Bool>(false)
    private let lastReached = Atomic<Bool>(true)
    private let listenerEnded = WakeSignal()
    private let warn: @Sendable (String) -> Void

    /// Connects to `address`, applies the migrations this engine knows, and refuses a database a
    /// newer engine has migrated further.
    init(address: PostgresAddress, connections: Int, warn: @escaping @Sendable (String) -> Void) throws {
        self.address = address
        self.warn = warn
        pool = PostgresPool(address, size: connections, applicationName: "pipeline serve")
        _ = try pool.withConnection { connection in try SchemaMigrations(SharedSchema.migrations).apply(using: connection) }
    }

    /// Runs `body` on a connection of the pool, noting whether the database could be reached.
    func database<Value>(_ body: (PostgresConnection) throws -> Value) throws -> Value {
        do {
            let value = try pool.withConnection(body)
            lastReached.store(true, ordering: .relaxed)
            return value
        } catch let error as PostgresError where [.connect, .connectionLost, .closed].contains(error.kind) {
            lastReached.store(false, ordering: .relaxed)
            throw error
        }
    }

    /// Whether the last request reached the database: a record not found while it cannot be
    /// reached is not known to be missing (answered 503, not 404).
    var isReachable: Bool { lastReached.load(ordering: .relaxed) }

    /// Calls `handler` with each notification's payload on `channel` (set before `start`).
    func on(_ channel: Channel, _ handler: @escaping @Sendable (String) -> Void) {
        handlers.withLock { $0[channel] = Callback(handler) }
    }

    /// Runs `work` on the listening thread every `interval` (about), from `start` on; it must be short.
    func periodically(every interval: Duration, _ work: @escaping @Sendable () -> Void) {
        chores.withLock { $0.append((interval, .now, Callback(work))) }
    }

    /// Runs the chores whose interval has passed.
    private func runChores() {
        let now = ContinuousClock.now
        let due = chores.withLock { chores -> [Callback<Void>] in
            var due: [Callback<Void>] = []
            for index in chores.indices where now - chores[index].last >= chores[index].every {
                chores[index].last = now
                due.append(chores[index].work)
            }
            return due
        }
        for work in due { work(()) }
    }

    /// Starts listening; a lost connection is made again (a second apart), and every handler is
    /// then called with an empty payload: what was said meanwhile is lost, so all look again.
    func start() {
        DedicatedThread.start("db-listen") { [self] in
            defer { listenerEnded.signal() }
            var connection: PostgresConnection?
            while !stopping.load(ordering: .relaxed) {
                do {
                    if connection == nil {
                        let made = try PostgresConnection(address, applicationName: "pipeline serve (listening)")
                        for channel in Channel.allCases { try made.listen(channel.rawValue) }
                        connection = made
                        hand(Channel.allCases.map { ($0, "") })
                    }
                    guard let connection else { continue }
                    let heard = try connection.notifications(waitingAtMost: .milliseconds(250))
                    hand(heard.compactMap { note in Channel(rawValue: note.channel).map { ($0, note.payload) } })
                    runChores()
                } catch {
                    connection?.close()
                    connection = nil
                    warn("the engine stopped hearing from the database (\(error)); listening again in a second")
                    WakeSignal.pause(for: .seconds(1))
                }
            }
            connection?.close()
        }
    }

    private func hand(_ notes: [(Channel, String)]) {
        let current = handlers.withLock { $0 }
        for (channel, payload) in notes { current[channel]?(payload) }
    }

    /// Tells every engine (this one too) `payload` on `channel`; best effort: a lost notification
    /// is made up for by the waits' own deadlines.
    func notify(_ channel: Channel, _ payload: String = "") {
        do {
            _ = try database { connection in
                try connection.execute("SELECT pg_notify($1, $2)", [channel.rawValue, payload])
            }
        } catch {
            warn("could not tell the other engines (\(channel.rawValue)): \(error)")
        }
    }

    /// `duration` as a Postgres interval (`$1::interval`).
    static func interval(_ duration: Duration) -> String {
        "\(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) seconds"
    }

    /// Stops listening and closes the connections.
    @available(*, noasync, message: "waits for the listener")
    func stop() {
        stopping.store(true, ordering: .relaxed)
        _ = listenerEnded.wait(atMost: .seconds(2))
        pool.close()
    }
}
