import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import XCTest

/// Answers every request with a small JSON body, collects small bodies and parses forms into a
/// folder, so the server's own behaviour can be seen without an engine behind it.
struct EchoHandler: HTTPServerHandler {
    let formDirectory: String

    func plan(_ head: RequestHead) -> RequestPlan {
        switch head.path {
        case "/form":
            return .form(directory: formDirectory, limit: 64 << 20, admit: { form in
                form.field("token") == "ok" ? nil : .text(403, "refused before any file was stored")
            }, then: { form in
                .json(200, #"{"fields":\#(form.fields.count),"files":\#(form.files.count)}"#)
            })
        case "/origin":
            return .respond(.text(200, head.origin))
        default:
            return .respond(.json(200, #"{"ok":true}"#))
        }
    }
}

/// A test case with an `EchoHandler` server started on demand and a folder for its forms.
class HTTPServerTestCase: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "http-server")
    }

    override func tearDown() {
        directory.remove()
    }

    func start(_ configure: (inout HTTPServer.Configuration) -> Void = { _ in }) throws -> HTTPServer {
        var configuration = HTTPServer.Configuration(port: 0)
        configure(&configuration)
        return try HTTPServer(configuration, handler: EchoHandler(formDirectory: directory.path + "/form"))
    }
}
