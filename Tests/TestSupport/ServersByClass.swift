import Synchronization
import XCTest

/// One server per test class, for base classes whose tests share one (it takes seconds to start):
/// started in the class's `setUp`, stopped in its `tearDown`, or why it did not start.
public final class ServersByClass<Server: Sendable>: Sendable {
    private let servers = Mutex<[ObjectIdentifier: Result<Server, any Error>]>([:])

    public init() {}

    /// Starts `type`'s server with `start`; its failure is kept, for each test to fail (or skip) with.
    public func start(for type: AnyClass, _ start: () throws -> Server) {
        let server = Result { try start() }
        servers.withLock { $0[ObjectIdentifier(type)] = server }
    }

    /// Stops `type`'s server with `stop`, when it started.
    public func stop(for type: AnyClass, _ stop: (Server) -> Void) {
        if case .success(let server) = servers.withLock({ $0.removeValue(forKey: ObjectIdentifier(type)) }) { stop(server) }
    }

    /// `type`'s server; the error it did not start with.
    public func server(for type: AnyClass) throws -> Server {
        try XCTUnwrap(servers.withLock { $0[ObjectIdentifier(type)] }, "the class's server was not started").get()
    }
}
