import Basics
import Foundation
import HTTPClient
import TestSupport
import APIClients

/// Files with random content and an uploader wired to a given endpoint.
final class UploadFixture: @unchecked Sendable {
    let files: TemporaryDirectory
    let state: TemporaryDirectory
    let http = HTTPClient()

    init() throws {
        files = try TemporaryDirectory(prefix: "tus-files")
        state = try TemporaryDirectory(prefix: "tus-state")
    }

    /// Writes `size` random bytes to `name` and returns the path and the bytes.
    func file(_ name: String, size: Int) throws -> (path: String, data: Data) {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: size)
        for index in stride(from: 0, to: size, by: 8) {
            withUnsafeBytes(of: generator.next() as UInt64) { word in
                for offset in 0..<min(8, size - index) { bytes[index + offset] = word[offset] }
            }
        }
        let data = Data(bytes)
        return (try files.write(name, data: data), data)
    }

    func uploader(
        _ endpoint: String, chunkSize: Int64? = nil, checksum: UploadOptions.ChecksumMode = .automatic,
        retryDelays: [Duration] = [.zero, .milliseconds(100), .milliseconds(200)], clock: any MonotonicClock = SystemClock()
    ) -> TusUploader {
        var options = UploadOptions(
            chunkSize: chunkSize, retryDelays: retryDelays, checksum: checksum,
            parallel: 4, stateDirectory: state.path)
        options.clock = clock
        return TusUploader(endpoint: endpoint, options: options, http: http)
    }

    /// Uploads one file and returns its result and every progress event.
    func upload(
        _ path: String, to endpoint: String, chunkSize: Int64? = nil, checksum: UploadOptions.ChecksumMode = .automatic,
        retryDelays: [Duration] = [.zero, .milliseconds(100), .milliseconds(200)], clock: any MonotonicClock = SystemClock()
    ) async throws -> (UploadResult, [UploadProgress]) {
        let events = EventLog()
        let results = try await uploader(endpoint, chunkSize: chunkSize, checksum: checksum, retryDelays: retryDelays, clock: clock).upload(
            [UploadFile(path: path, metadata: ["filename": "f.bin", "filetype": "application/octet-stream"])]
        ) { events.append($0) }
        return (try results[0].get(), events.events)
    }

    var stateEntries: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: state.path)) ?? []
    }

    deinit {
        files.remove()
        state.remove()
    }
}

/// Progress events collected from any thread.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [UploadProgress] = []

    func append(_ event: UploadProgress) {
        lock.lock()
        stored.append(event)
        lock.unlock()
    }

    var events: [UploadProgress] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
