import Foundation
import Synchronization
import HTTPClient
import HTTPServer

/// One HTTP server for the process, whose only route parses a form into a temporary folder, and
/// a client that posts fuzz inputs to it as multipart bodies (boundary `fuzz`).
final class FormFuzzServer: Sendable {
    static let shared = FormFuzzServer()

    private let folder: String
    private let server: HTTPServer?
    private let http = HTTPClient()

    private init() {
        folder = NSTemporaryDirectory() + "/pipeline-form-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)  // the server's start says a failure
        do {
            server = try HTTPServer(HTTPServer.Configuration(port: 0), handler: FormHandler(directory: folder + "/parts"))
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
        let answer = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        let client = http
        Task {
            let status = (try? await client.send(request))?.status ?? -1  // no answer: -1, which no documented status is
            answer.withLock { $0 = status }
            done.signal()
        }
        done.wait()
        let status = answer.withLock { $0 }
        guard [200, 400, 403, 413].contains(status) else {
            FileHandle.standardError.write(Data("form: unexpected status \(status)\n".utf8))
            return false
        }
        // The server removes a request's files once it has answered, on its own thread: allow it a moment.
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline {
            if ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/parts")) ?? []).isEmpty { return true }  // no parts folder: nothing left
            usleep(1000)
        }
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
