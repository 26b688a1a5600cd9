import Foundation
import HTTPClient
import Wire
import XCTest

/// Error messages quote a response body in one short line, whatever the server sent.
final class HTTPResponseTests: XCTestCase {
    func testBodyTextIsOneShortLine() {
        let nginx = """
            <html>\r
            <head><title>413 Request Entity Too Large</title></head>\r
            <body>\r
            <center><h1>413 Request Entity Too Large</h1></center>\r
            <hr><center>nginx/1.22.1</center>\r
            </body>\r
            </html>\r
            """
        let cases: [(String, String)] = [
            (nginx, "413 Request Entity Too Large"),
            ("<html><body><h1>Bad Gateway</h1><p>upstream down</p></body></html>", "Bad Gatewayupstream down"),
            ("\n\n  first line  \nsecond line\n", "first line"),
            (String(repeating: "x", count: 500), String(repeating: "x", count: 200) + "…"),
            ("", ""),
        ]
        for (body, expected) in cases {
            XCTAssertEqual(HTTPResponse(status: 500, headers: HTTPHeaders(), body: Data(body.utf8)).bodyText(), expected, body)
        }
    }
}
