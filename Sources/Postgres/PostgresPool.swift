import Basics
import Synchronization

/// Up to `size` connections to one database, made when first needed and shared one user at a
/// time: `withConnection` lends one, waiting while all are lent. A connection found broken (after
/// an error, or when the server ended its session meanwhile) is closed and replaced by a new one.
public final class PostgresPool: Sendable {
    /// The server and database.
    public let address: PostgresAddress
    /// The most connections open at once.
    public let size: Int
    private let applicationName: String
    private let state = Mutex(State())
    private let trips = Atomic<Int>(0)

    private struct State {
        /// Connections open and not lent.
        var idle: [PostgresConnection] = []
        /// Connections open or being made, lent or not.
        var open = 0
        /// Users waiting for a connection, woken in turn.
        var waiting: [WakeSignal] = []
        var closed = false
    }

    /// What a user does next.
    private enum Turn {
        case reuse(PostgresConnection)
        case make
        case wait
    }

    /// A pool of at most `size` connections to `address`, named `applicationName` on the server. Connects nothing yet.
    public init(_ address: PostgresAddress, size: Int, applicationName: String) {
        self.address = address
        self.size = max(1, size)
        self.applicationName = applicationName
    }

    /// Calls `body` with a connection of its own, waiting until one is free (or made), and takes it
    /// back after. A connection that `body` leaves in a transaction is rolled back; one found
    /// broken is closed, and the next user gets a new one.
    @discardableResult
    @available(*, noasync, message: "blocks its thread")
    public func withConnection<Value>(_ body: (PostgresConnection) throws -> Value) throws -> Value {
        let connection = try lend()
        let before = connection.roundTrips
        defer { takeBack(connection, tripsSince: before) }
        return try body(connection)
    }

    /// Requests sent to the server by every connection the pool has lent, closed ones included.
    public var roundTrips: Int { trips.load(ordering: .relaxed) }

    /// Connections open now (lent or idle).
    public var openConnections: Int { state.withLock { $0.open } }

    /// Users waiting for a connection now (all are lent).
    public var waitingUsers: Int { state.withLock { $0.waiting.count } }

    /// Closes the idle connections now and the lent ones when they come back; users waiting, and
    /// later ones, get a `closed` error.
    public func close() {
        let (idle, waiting) = state.withLock { state in
            let taken = (state.idle, state.waiting)
            state.closed = true
            state.open -= state.idle.count
            state.idle = []
            state.waiting = []
            return taken
        }
        idle.forEach { $0.close() }
        waiting.forEach { $0.signal() }
    }

    /// A connection for one user: an idle one that still works, a new one while fewer than `size`
    /// are open, else the next given back.
    private func lend() throws(PostgresError) -> PostgresConnection {
        while true {
            let signal = WakeSignal()
            let turn = try state.withLock { state throws(PostgresError) -> Turn in
                guard !state.closed else { throw PostgresError.closed("take a connection from the pool", address: address) }
                if let connection = state.idle.popLast() { return .reuse(connection) }
                guard state.open >= size else {
                    state.open += 1
                    return .make
                }
                state.waiting.append(signal)
                return .wait
            }
            switch turn {
            case .reuse(let connection):
                if connection.isAlive() { return connection }
                connection.close()
                return try make()
            case .make:
                return try make()
            case .wait:
                signal.wait()
            }
        }
    }

    /// A new connection in a place already counted in `open`; the place is given up when it fails.
    private func make() throws(PostgresError) -> PostgresConnection {
        do {
            return try PostgresConnection(address, applicationName: applicationName)
        } catch {
            let next = state.withLock { state -> WakeSignal? in
                state.open -= 1
                return state.waiting.isEmpty ? nil : state.waiting.removeFirst()
            }
            next?.signal()
            throw error
        }
    }

    /// Takes a lent connection back: kept when it still works, closed otherwise; the next waiting user is woken.
    private func takeBack(_ connection: PostgresConnection, tripsSince before: Int) {
        let usable = connection.endOpenTransaction()
        trips.add(connection.roundTrips - before, ordering: .relaxed)
        let (keep, next) = state.withLock { state -> (Bool, WakeSignal?) in
            let keep = usable && !state.closed
            if keep { state.idle.append(connection) } else { state.open -= 1 }
            return (keep, state.waiting.isEmpty ? nil : state.waiting.removeFirst())
        }
        if !keep { connection.close() }
        next?.signal()
    }
}
