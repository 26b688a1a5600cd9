import TestSupport
import XCTest

/// Help text is part of the interface: golden files catch accidental changes.
final class HelpTests: XCTestCase {
    func testToolHelpMatchesGolden() async throws {
        let result = await CLIHarness.run(["--help"])
        XCTAssertEqual(result.status, 0)
        try Golden.assertMatches(result.stdout, file: Fixtures.path("golden/help.txt", target: "CLITests"))
    }

    func testEveryCommandHasHelpMatchingGolden() async throws {
        for command in ["validate", "plan", "diff", "run", "robots", "templates", "results", "status", "replay", "cancel", "upload", "sign", "serve", "signer"] {
            let result = await CLIHarness.run([command, "--help"])
            XCTAssertEqual(result.status, 0, command)
            let outcome = await CLIHarness.run(["help", command])
            XCTAssertEqual(outcome.stdout, result.stdout, "'help \(command)' and '\(command) --help' agree")
            XCTAssertTrue(result.stdout.contains("Usage: pipeline \(command)"), command)
            try Golden.assertMatches(result.stdout, file: Fixtures.path("golden/help-\(command).txt", target: "CLITests"))
        }
    }

    func testEveryHelpFitsAnEightyColumnTerminal() async throws {
        let tool = await CLIHarness.run(["--help"])
        let table = tool.stdout.components(separatedBy: "Commands:\n").last?.components(separatedBy: "\n\n").first ?? ""
        let commands = table.split(separator: "\n").compactMap { $0.hasPrefix("  ") && !$0.hasPrefix("   ") ? $0.split(separator: " ").first.map(String.init) : nil }
        XCTAssertGreaterThan(commands.count, 15, tool.stdout)
        for command in [nil] + commands {
            let help = await CLIHarness.run((command.map { [$0] } ?? []) + ["--help"])
            XCTAssertEqual(help.status, 0, command ?? "pipeline")
            for line in help.stdout.split(separator: "\n") where line.count > 80 {
                XCTFail("'\(command ?? "pipeline") --help' has a line of \(line.count) columns: \(line)")
            }
        }
    }

    func testTheManualPageNamesEveryVariableTheToolReadsAndSeeAlso() async throws {
        let page = await CLIHarness.run(["help", "--man"]).stdout
        let environment = try XCTUnwrap(page.range(of: ".SH ENVIRONMENT")).upperBound
        let section = String(page[environment...]).components(separatedBy: ".SH EXIT STATUS").first ?? ""
        // Every variable the sources read by name (an `environment["NAME"]` or a CI's shard
        // variables), so a new one cannot go unlisted.
        var read: Set<String> = []
        let expression = try NSRegularExpression(pattern: #"(?:environment\["|(?:index|total|variable): ")([A-Z][A-Z0-9_]+)""#)
        for file in try FileManager.default.subpathsOfDirectory(atPath: PackageRoot.path + "/Sources") where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: PackageRoot.path + "/Sources/" + file, encoding: .utf8)
            for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { read.insert(String(text[range])) }
            }
        }
        // PATH is the system's, and the secret's variable is named by the user (TRANSLOADIT_SECRET by default, listed).
        read.remove("PATH")
        XCTAssertTrue(read.isSuperset(of: ["TRANSLOADIT_KEY", "PIPELINE_SHARD_INDEX", "GITHUB_ACTIONS", "CI_NODE_INDEX"]), "\(read.sorted())")
        for name in read.sorted() { XCTAssertTrue(section.contains(name), "\(name) is read but not in the manual's ENVIRONMENT") }
        XCTAssertTrue(page.contains(".SH SEE ALSO"))
    }

    func testVersion() async {
        let result = await CLIHarness.run(["--version"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout, "pipeline 0.1.0\n")
    }
}

/// Command lines that cannot be understood exit 64 and say why.
final class UsageErrorTests: XCTestCase {
    func testUsageErrors() async {
        let cases: [([String], String)] = [
            ([], "Usage: pipeline <command>"),
            (["paln"], "unknown command 'paln' (did you mean 'plan'?)"),
            (["plan"], "missing MANIFEST"),
            (["plan", "a.yml", "--otu", "x"], "unknown option '--otu' (did you mean '--out'?)"),
            (["plan", "a.yml", "--out"], "option '--out' needs a value (FILE)"),
            (["plan", "a.yml", "b.yml"], "unexpected argument 'b.yml'"),
            (["diff", "a.json"], "missing NEW"),
            (["validate", "a.yml", "--json=yes"], "option '--json' takes no value"),
            (["plan", "a.yml", "-x"], "unknown option '-x'"),
            (["help", "nope"], "unknown command 'nope'"),
            (["--versoin"], "unknown option '--versoin' (did you mean '--version'?)"),
            (["hepl"], "unknown command 'hepl' (did you mean 'help'?)"),
            (["signer", "--policy", "p.yml", "--tokens", "t.yml", "--jwks", "k.json"], "--jwks needs --issuer and --audience"),
            (["signer", "--policy", "p.yml", "--tokens", "t.yml", "--jwks", "k.json", "--issuer", "https://i"], "--jwks needs --issuer and --audience"),
            (["signer", "--policy", "p.yml", "--tokens", "t.yml", "--jwks", "k.json", "--issuer", "", "--audience", ""], "--jwks needs --issuer and --audience"),
            (["signer", "--policy", "p.yml", "--tokens", "t.yml", "--jwks", "k.json", "--issuer", "http://i", "--audience", "a"], "--issuer must be an https URL"),
            (["sign", "--params", "p.json", "--signer", "url", "--url", "https://s", "--token-env", "A", "--token-file", "f"], "not both"),
            (["sign", "--params", "p.json", "--signer", "url", "--url", "https://s", "--token-oidc", "env", "--token-env", "A", "--token-file", "f"],
             "drop --token-file"),
        ]
        for (arguments, message) in cases {
            let result = await CLIHarness.run(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
        }
    }
}
