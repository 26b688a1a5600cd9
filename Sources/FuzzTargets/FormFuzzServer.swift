import Basics
import Foundation
import HTTPClient
import HTTPServer

/// One HTTP server for the process, whose only route parses a form into a temporary folder, and
/// a client that posts fuzz inputs to it as multipart bodies (boundary `fuzz`).
final class FormFuzzServer: Sendable {
    static let shared = FormFuzzServer()

    private let folder: String
    private let server: HTTPServer?
    private let http = HTTPClient()
    /// Given as each request ends, once its files are removed (the server logs it then).
    private let ended = WakeSignal()

    private init() {
        folder = NSTemporaryDirectory() + "/pipeline-form-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)  // the server's start says a failure
        do {
            let ended = ended
            server = try HTTPServer(HTTPServer.Configuration(port: 0), handler: FormHandler(directory: folder + "/parts"), log: { _ in ended.signal() })
        } catch {
            FileHandle.standardError.write(Data("form fuzz: the server cannot start: \(error)\n".utf8))
            server = nil
        }
    }

    /// Posts `body`; the server must answer with a status it documents and leave no file behind.
    func post(_ body: Data) -> Bool {
        guard let server else { return false }
        let request = HTTPRequest(
            method: "POST", url: "http://127.0.0.1:\(server.port)/form",
            headers: [("Content-Type", "multipart/form-data; boundary=fuzz")], body: .data(body))
        let client = http
        let status = (try? BlockingWait.result { try await client.send(request) }.get())?.status ?? -1  // no answer: -1, which no documented status is
        guard [200, 400, 403, 413].contains(status) else {
            FileHandle.standardError.write(Data("form: unexpected status \(status)\n".utf8))
            return false
        }
        // The server removes a request's files once it has answered, on its own thread, and then
        // logs the request: each log line wakes this wait (2 s at most) to look again.
        let deadline = ContinuousClock.now + .seconds(2)
        repeat {
            if ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/parts")) ?? []).isEmpty { return true }  // no parts folder: nothing left
        } while ended.wait(until: deadline)
        FileHandle.standardError.write(Data("form: files were left behind\n".utf8))
        return false
    }
}

/// Admits forms whose first field is `token=ok`, then reports what arrived.
private struct FormHandler: HTTPServerHandler {
    let directory: String

    func plan(_ head: RequestHead) -> RequestPlan {
        .form(directory: directory, limit: 8 << 20, admit: { form in
            form.fields.first?.value == "ok" ? nil : .text(403, "refused")
        }, then: { form in
            .json(200, #"{"fields":\#(form.fields.count),"files":\#(form.files.count)}"#)
        })
    }
}
