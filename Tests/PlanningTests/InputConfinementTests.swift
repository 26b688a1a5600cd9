import Basics
import Foundation
@testable import Planning
import TestSupport
import XCTest

/// Inputs stay inside the project: a committed link that leads out of the manifest's folder (or
/// into /proc, /sys, /dev) is an error at plan time, unless the manifest widens the root.
final class InputConfinementTests: XCTestCase {
    private func plan(_ manifest: String, in site: TemporaryDirectory) throws -> Loaded<Plan> {
        let path = try site.write("project/pipeline.yml", manifest)
        return PlanningSession(environment: [:]).plan(manifestPath: path)
    }

    private func manifest(inputs: String, extra: String = "", job: String = "") -> String {
        """
        version: 1
        \(extra)
        assemblies:
          files:
            inputs: [\(inputs)]
            \(job)
            steps:
              hash: {robot: /file/hash, use: ":original"}
        """
    }

    private func site() throws -> TemporaryDirectory {
        let site = try TemporaryDirectory(prefix: "confinement")
        try site.write("project/inputs/own.txt", "own")
        try site.write("secrets/token.txt", "secret")
        try site.write("shared/logo.txt", "logo")
        return site
    }

    func testALinkToAFileOutsideIsAnErrorNamingLinkAndTarget() throws {
        let site = try site()
        defer { site.remove() }
        try site.symlink("project/inputs/x.txt", to: site.path + "/secrets/token.txt")
        let loaded = try plan(manifest(inputs: #""inputs/*.txt""#), in: site)
        XCTAssertNil(loaded.value)
        let error = try XCTUnwrap(loaded.diagnostics.first { $0.id == "plan.link-outside" })
        XCTAssertTrue(error.message.contains("'inputs/x.txt' is a symbolic link to '\(RealPath.of(site.path)!)/secrets/token.txt'"), error.message)
        XCTAssertEqual(error.location?.line, 5, "located at the input pattern")
        XCTAssertTrue(error.hint?.contains("inputs_root") == true)
    }

    func testALinkToAFolderOutsideIsNotWalked() throws {
        let site = try site()
        defer { site.remove() }
        try site.symlink("project/inputs/more", to: site.path + "/secrets")
        let loaded = try plan(manifest(inputs: #""inputs/**/*.txt""#), in: site)
        XCTAssertNil(loaded.value)
        XCTAssertTrue(loaded.diagnostics.contains { $0.id == "plan.link-outside" && $0.message.contains("'inputs/more'") }, "\(loaded.diagnostics)")
        // Named literally, the same.
        let literal = try plan(manifest(inputs: #""inputs/more/token.txt""#), in: site)
        XCTAssertTrue(literal.diagnostics.contains { $0.id == "plan.link-outside" }, "\(literal.diagnostics)")
    }

    func testLinksInsideTheProjectAreFollowed() throws {
        let site = try site()
        defer { site.remove() }
        try site.write("project/other/inner.txt", "inner")
        try site.symlink("project/inputs/inner.txt", to: "../other/inner.txt")
        let loaded = try plan(manifest(inputs: #""inputs/*.txt""#), in: site)
        XCTAssertEqual(loaded.value?.assemblies.flatMap(\.files).map(\.path), ["inputs/inner.txt", "inputs/own.txt"], "\(loaded.diagnostics)")
    }

    func testInputsRootWidensWhereLinksMayLead() throws {
        let site = try site()
        defer { site.remove() }
        try site.symlink("project/inputs/logo.txt", to: "../../shared/logo.txt")
        let widened = try plan(manifest(inputs: #""inputs/*.txt""#, extra: "inputs_root: .."), in: site)
        XCTAssertEqual(widened.value?.assemblies.flatMap(\.files).map(\.path), ["inputs/logo.txt", "inputs/own.txt"], "\(widened.diagnostics)")
        // Still nothing from the kernel's trees.
        try site.symlink("project/inputs/environ.txt", to: "/proc/self/environ")
        let kernel = try plan(manifest(inputs: #""inputs/*.txt""#, extra: "inputs_root: /"), in: site)
        XCTAssertNil(kernel.value)
        XCTAssertTrue(kernel.diagnostics.contains { $0.id == "plan.link-outside" && $0.message.contains("/proc") }, "\(kernel.diagnostics)")
        XCTAssertEqual(kernel.diagnostics.first { $0.message.contains("/proc") }?.hint?.contains("whatever 'inputs_root' says: remove the link"), true,
                       "no widening helps here: \(kernel.diagnostics)")
    }

    func testAllowOutsideNeverReachesTheKernelsTrees() throws {
        let site = try site()
        defer { site.remove() }
        let outside = try plan(manifest(inputs: #""../secrets/*.txt""#, job: "allow_outside: true"), in: site)
        XCTAssertEqual(outside.value?.assemblies.flatMap(\.files).map(\.path), ["../secrets/token.txt"], "\(outside.diagnostics)")
        let kernel = try plan(manifest(inputs: #""/proc/self/environ", "/proc/cpuinfo", "/sys/kernel/*""#, job: "allow_outside: true"), in: site)
        XCTAssertNil(kernel.value)
        XCTAssertEqual(kernel.diagnostics.filter { $0.id == "plan.system-path" }.map(\.location?.column), [14, 36, 53], "\(kernel.diagnostics)")
    }

    func testAProjectInDevShmIsPlannedAndDevicesStayRefused() throws {
        // /dev/shm is a memory file system people keep projects in; the rest of /dev is the kernel's.
        var template = Array("/dev/shm/pipeline-confinement.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw XCTSkip("no /dev/shm here") }
        let root = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/inputs", withIntermediateDirectories: true)
        try Data("own".utf8).write(to: URL(fileURLWithPath: root + "/inputs/own.txt"))
        try FileManager.default.createSymbolicLink(atPath: root + "/inputs/null.txt", withDestinationPath: "/dev/null")
        try Data(manifest(inputs: #""inputs/own.txt""#).utf8).write(to: URL(fileURLWithPath: root + "/pipeline.yml"))
        let planned = PlanningSession(environment: [:]).plan(manifestPath: root + "/pipeline.yml")
        XCTAssertEqual(planned.value?.assemblies.flatMap(\.files).map(\.path), ["inputs/own.txt"], "\(planned.diagnostics)")
        try Data(manifest(inputs: #""inputs/null.txt""#).utf8).write(to: URL(fileURLWithPath: root + "/pipeline.yml"))
        let device = PlanningSession(environment: [:]).plan(manifestPath: root + "/pipeline.yml")
        XCTAssertNil(device.value)
        XCTAssertFalse(device.diagnostics.isEmpty, "a link to /dev/null is no input")
    }

    func testAManifestReadThroughTheKernelsTreesIsRefused() throws {
        let site = try site()
        defer { site.remove() }
        let path = try site.write("project/pipeline.yml", manifest(inputs: #""inputs/*.txt""#))
        let descriptor = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        // /dev/fd/N would make /dev the project folder, /proc/self/fd the other spelling of it.
        for name in ["/dev/fd/\(descriptor)", "/proc/self/fd/\(descriptor)"] {
            let loaded = PlanningSession(environment: [:]).plan(manifestPath: name)
            XCTAssertNil(loaded.value, name)
            XCTAssertEqual(loaded.diagnostics.map(\.id), ["manifest.system-path"], name)
        }
        XCTAssertNotNil(PlanningSession(environment: [:]).plan(manifestPath: path).value, "the file itself plans")
    }

    func testAnOpenedFileIsJudgedByWhereItReallyIs() throws {
        let site = try site()
        defer { site.remove() }
        try site.symlink("project/inputs/x.txt", to: site.path + "/secrets/token.txt")
        let root = try XCTUnwrap(RealPath.of(site.path + "/project"))
        // As a link swapped in after the walk would be: opened through the link, refused on the descriptor.
        let results = FileHasher.digests(paths: ["inputs/x.txt", "inputs/own.txt"], base: site.path + "/project", confinement: root)
        guard case .failure(let error) = results[0] else { return XCTFail("a file outside the root was hashed") }
        XCTAssertTrue(error.description.contains("outside the folder inputs must stay inside"), error.description)
        guard case .success = results[1] else { return XCTFail("a file inside the root was refused") }
        // A FIFO is never read.
        XCTAssertEqual(mkfifo(site.path + "/project/inputs/pipe", 0o600), 0)
        let fifo = open(site.path + "/project/inputs/pipe", O_RDONLY | O_NONBLOCK)
        defer { close(fifo) }
        XCTAssertEqual(FileHasher.refusal(of: fifo, confinement: root), "not a regular file")
    }

    func testGitsOwnFolderIsNeverAnInput() throws {
        let site = try site()
        defer { site.remove() }
        try site.write("project/.git/config", "[http] extraheader = AUTHORIZATION: basic c2VjcmV0")
        let loaded = try plan(manifest(inputs: #"".git/config""#), in: site)
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics.first { $0.id == "plan.git-folder" }?.location?.line, 5, "\(loaded.diagnostics)")
    }

    func testAPolicyOrAManifestLinkedFromOutsideIsNotRead() throws {
        let site = try site()
        defer { site.remove() }
        try site.write("secrets/credentials", "https://x-access-token:ghs_SECRET@github.com")
        try site.symlink("project/policy.yml", to: site.path + "/secrets/credentials")
        let linkedPolicy = try plan(manifest(inputs: #""inputs/*.txt""#, extra: "policy: policy.yml"), in: site)
        XCTAssertNil(linkedPolicy.value)
        XCTAssertTrue(linkedPolicy.diagnostics.contains { $0.id == "manifest.outside-project" }, "\(linkedPolicy.diagnostics)")
        XCTAssertFalse(linkedPolicy.diagnostics.map(\.message).joined().contains("ghs_SECRET"))
        XCTAssertFalse(linkedPolicy.sources.line(1, in: site.path + "/project/policy.yml")?.contains("ghs_SECRET") ?? false)
        try site.symlink("project/linked.yml", to: site.path + "/secrets/credentials")
        let linkedManifest = PlanningSession(environment: [:]).plan(manifestPath: site.path + "/project/linked.yml")
        XCTAssertEqual(linkedManifest.diagnostics.map(\.id), ["manifest.outside-project"])
    }
}
