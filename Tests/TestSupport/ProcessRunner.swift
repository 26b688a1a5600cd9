import Foundation
import XCTest

/// Runs a program to completion and captures what it printed.
public struct ProcessResult: Sendable {
    /// The exit status.
    public var status: Int32
    /// Everything written to standard output.
    public var stdout: String
    /// Everything written to standard error.
    public var stderr: String
}

/// Starts real processes for end-to-end tests.
public enum ProcessRunner {
    /// Runs `executable` with `arguments` in `directory`, with `environment` added to this process's.
    public static func run(
        _ executable: String, _ arguments: [String], in directory: String? = nil, environment: [String: String] = [:]
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes before waiting so a chatty child cannot block on a full pipe.
        let group = DispatchGroup()
        let stdout = DataBox(), stderr = DataBox()
        for (pipe, box) in [(out, stdout), (err, stderr)] {
            group.enter()
            DispatchQueue.global().async {
                box.data = pipe.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
        }
        group.wait()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus,
            stdout: String(decoding: stdout.data, as: UTF8.self),
            stderr: String(decoding: stderr.data, as: UTF8.self))
    }

    /// The `pipeline` executable built beside the test bundle.
    public static var pipelineExecutable: String {
        let bundle = Bundle.main.bundleURL.deletingLastPathComponent()
        let candidates = [bundle.appendingPathComponent("pipeline").path, PackageRoot.path + "/.build/debug/pipeline"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
    }
}

private final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// The Python virtual environment `scripts/setup.sh` creates with the test peers.
public enum PythonPeers {
    /// The path of a tool in `.venv/bin`, or `nil` when it is not installed.
    public static func tool(_ name: String) -> String? {
        let path = PackageRoot.path + "/.venv/bin/" + name
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// The path of a tool in `.venv/bin`; in CI a missing tool is an error, elsewhere a skip.
    public static func require(_ name: String) throws -> String {
        if let tool = tool(name) { return tool }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            throw NSError(domain: "PythonPeers", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name) is missing from .venv: scripts/setup.sh must install it"])
        }
        throw XCTSkip("\(name) is not installed in .venv; run scripts/setup.sh")
    }
}
