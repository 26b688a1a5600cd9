import Foundation
import Spec
import XCTest

final class EndpointTests: XCTestCase {
    func testEndpointsAreParsedOnceAndNamedWithoutCredentials() {
        XCTAssertEqual(Endpoint("local"), .local)
        XCTAssertEqual(Endpoint("https://user:pw@api2.transloadit.com/x").key, "https://api2.transloadit.com/x")
        XCTAssertNil(Endpoint("http://127.0.0.1:8787").problem)
        XCTAssertEqual(Endpoint("LOCAL").problem, "endpoint 'LOCAL' is not 'local' or an http(s) URL")
    }

    func testOnlyTheHostedServiceIsPacedByDefault() {
        XCTAssertTrue(Endpoint.hosted.isHostedService)
        XCTAssertTrue(Endpoint("https://api2-eu.transloadit.com").isHostedService)
        XCTAssertFalse(Endpoint("https://transloadit.com.example.net").isHostedService)
        XCTAssertFalse(Endpoint("http://127.0.0.1:8787").isHostedService)
        XCTAssertFalse(Endpoint.local.isHostedService)
    }

    /// CI systems pass a variable they do not have as empty: that is unset, not an endpoint.
    func testAnEmptyEndpointVariableIsUnset() throws {
        let text = "version: 1\nassemblies:\n  a:\n    inputs: [\"*.png\"]\n    steps:\n      hash: {robot: /file/hash, use: \":original\"}\n"
        let manifest = try XCTUnwrap(ManifestLoader(environment: [:]).decode(Data(text.utf8), file: "pipeline.yml").value)
        XCTAssertEqual(Endpoint.of(manifest, override: nil, environment: ["TRANSLOADIT_ENDPOINT": ""]), .hosted)
        XCTAssertEqual(Endpoint.of(manifest, override: nil, environment: ["TRANSLOADIT_ENDPOINT": "local"]), .local)
        XCTAssertEqual(Endpoint.of(manifest, override: nil, environment: [:]), .hosted)
    }
}
