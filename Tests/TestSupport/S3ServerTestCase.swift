import Foundation
import XCTest

/// A test class whose tests share one S3 server (each takes seconds to start): started before the
/// class's first test, stopped after its last. A server that cannot start fails every test (or
/// skips it, outside CI, when setup has not installed the server).
open class S3ServerTestCase: XCTestCase {
    /// The server the class needs: SeaweedFS, which checks every signature, unless it says otherwise.
    open class var serverKind: S3TestServer.Kind { .seaweedfs }

    private static let servers = ServersByClass<S3TestServer>()

    override open class func setUp() {
        super.setUp()
        servers.start(for: self) { try S3TestServer(serverKind) }
    }

    override open class func tearDown() {
        servers.stop(for: self) { $0.stop() }
        super.tearDown()
    }

    override open func setUpWithError() throws {
        try super.setUpWithError()
        _ = try s3
    }

    /// The class's server.
    public var s3: S3TestServer {
        get throws { try Self.servers.server(for: type(of: self)) }
    }
}
