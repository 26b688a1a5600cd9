import Foundation
import HTTPClient
@testable import Client
import Wire
import XCTest

/// A signer's refusal is said once, in words: its code, its message and each violation's path.
final class SignerRefusalTests: XCTestCase {
    func testARefusalIsReadableNotRawJSON() {
        let body = #"{"error":"POLICY_VIOLATION","message":"the policy does not allow these params","violations":[{"id":"policy.option-value","message":"width 5000 is over 4000","path":"steps.thumb.width"}]}"#
        let text = URLSigner.refusal(HTTPResponse(status: 403, headers: HTTPHeaders(), body: Data(body.utf8)))
        XCTAssertEqual(text, "POLICY_VIOLATION: the policy does not allow these params (steps.thumb.width: width 5000 is over 4000 [policy.option-value])")
        let other = URLSigner.refusal(HTTPResponse(status: 502, headers: HTTPHeaders(), body: Data("<html>bad gateway</html>".utf8)))
        XCTAssertFalse(other.contains("{"))
    }
}
