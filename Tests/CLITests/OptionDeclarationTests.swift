@testable import CLI
import Foundation
import TestSupport
import XCTest

/// Options are looked up by name only in `Sources/CLI/Arguments/`, where each command's line is
/// parsed once into typed arguments: every name looked up there is an option some command
/// declares (a typo would read as "not given"), every option a command declares is looked up
/// (or it would be accepted and ignored), and no other file reads the command line.
final class OptionDeclarationTests: XCTestCase {
    func testEveryOptionReadIsDeclaredAndEveryOptionDeclaredIsRead() throws {
        let folder = PackageRoot.path + "/Sources/CLI"
        var read: Set<String> = []
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        XCTAssertGreaterThan(files.count, 20)
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            // Plain lookups and the typed readers of OptionValues.swift (`integer("timeout", …)`).
            for match in text.matches(of: /\.(?:flag|value|values|integer|duration|durationOrOff|size)\("([a-z0-9-]+)"/) { read.insert(String(match.1)) }
            if text.contains(".port(default:") { read.insert("port") }
            if text.contains(".shard()") { read.insert("shard") }
            if text.contains("value(CommandSpec.caCertOption.name)") { read.insert(CommandSpec.caCertOption.name) }
            if text.contains("value(CommandSpec.secretEnvOption.name)") { read.insert(CommandSpec.secretEnvOption.name) }
        }
        XCTAssertGreaterThan(read.count, 30)
        let specs = PipelineCLI.commands.map { $0.spec }
        let declared = Set(specs.flatMap { $0.allOptions.map(\.name) })
        XCTAssertEqual(read.subtracting(declared), [], "looked up but declared by no command")
        for spec in specs {
            let unread = Set(spec.options.map(\.name)).subtracting(read)
            XCTAssertEqual(unread, [], "'\(spec.name)' declares options nothing reads")
        }
    }

    func testOnlyTheArgumentsReadTheCommandLine() throws {
        let folder = PackageRoot.path + "/Sources/CLI"
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        XCTAssertGreaterThan(files.count, 20)
        var readers: [String] = []
        for file in files where !file.hasPrefix("Arguments/") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            let lookups = text.matches(of: /\.(?:flag|value|values|integer|duration|durationOrOff|size)\("[a-z0-9-]+"/).count
            if lookups > 0 || text.contains(".positionals") || text.contains(".port(default:") || text.contains(".shard()") { readers.append(file) }
        }
        XCTAssertEqual(readers.sorted(), [], "read the command line outside Arguments/; parse it in the command's Arguments type")
    }
}
