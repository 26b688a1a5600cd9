import Basics
import XCTest

/// Which URLs a token may be sent to, judged from the text: user information never hides a host.
final class SecureURLTests: XCTestCase {
    func testTheLoopbackHostAndHTTPSOnly() {
        let allowed = [
            "https://signer.example.com/sign", "https://user:pw@signer.example.com/sign", "http://127.0.0.1:8080/sign",
            "http://localhost/sign", "http://[::1]:9/sign", "http://127.0.0.1", "HTTP://LOCALHOST:1/x",
        ]
        let refused = [
            "http://127.0.0.1:1@127.0.0.2/sign", "http://localhost:80@evil.example/", "http://127.0.0.1@evil.example/",
            "http://127.0.0.1.evil.example/", "http://localhost.evil.example/", "http://127.0.0.1:80x/", "http://[::1]x/",
            "http://evil.example/?h=127.0.0.1", "http://10.0.0.1/sign", "https:///nohost", "ftp://127.0.0.1/", "http://127.0.0.1\\@evil/",
            "http://127.0.0.1 /", "file:///etc/passwd",
        ]
        for url in allowed { XCTAssertTrue(SecureURL.allowsSecrets(url), url) }
        for url in refused { XCTAssertFalse(SecureURL.allowsSecrets(url), url) }
    }
}
