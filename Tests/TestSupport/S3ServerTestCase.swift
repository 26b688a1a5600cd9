import Foundation
import Synchronization
import XCTest

/// A test class whose tests share one S3 server (each takes seconds to start): started before the
/// class's first test, stopped after its last. A server that cannot start fails every test (or
/// skips it, outside CI, when setup has not installed the server).
open class S3ServerTestCase: XCTestCase {
    /// The server the class needs: SeaweedFS, which checks every signature, unless it says otherwise.
    open class var serverKind: S3TestServer.Kind { .seaweedfs }

    /// Each class's server, or why it did not start.
    private static let servers = Mutex<[ObjectIdentifier: Result<S3TestServer, any Error>]>([:])

    override open class func setUp() {
        super.setUp()
        let server = Result { try S3TestServer(serverKind) }
        servers.withLock { $0[ObjectIdentifier(self)] = server }
    }

    override open class func tearDown() {
        if case .success(let server) = servers.withLock({ $0.removeValue(forKey: ObjectIdentifier(self)) }) { server.stop() }
        super.tearDown()
    }

    override open func setUpWithError() throws {
        try super.setUpWithError()
        _ = try s3
    }

    /// The class's server.
    public var s3: S3TestServer {
        get throws {
            let server = Self.servers.withLock { $0[ObjectIdentifier(type(of: self))] }
            return try XCTUnwrap(server, "the class's server was not started").get()
        }
    }
}
