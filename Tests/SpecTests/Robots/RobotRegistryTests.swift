@testable import Spec
import Basics
import Foundation
import TestSupport
import XCTest

/// The registry is the one list of local robots: the catalog's local tables, the digests' and
/// the docs' table come from it, and each declaration's options are the ones its parameters read.
final class RobotRegistryTests: XCTestCase {
    /// Options a robot cannot do without, or without which others count for nothing, so that
    /// decoding reaches every other option.
    private let required: [String: [String: JSONValue]] = [
        "/http/import": ["url": .string("https://example.com/a.jpg")],
        "/image/resize": ["watermark_url": .string("https://example.com/w.png")],
        "/meta/write": ["data_to_write": .object(["Copyright": .string("Example")])],
    ]

    private func optionsRead<Declaration: RobotDeclaration>(_ declaration: Declaration.Type) throws -> Set<String> {
        let robot = declaration.names[0]
        let reads = StepOptionsDecoder.ReadKeys()
        _ = try StepOptionsDecoder.decode(Declaration.Parameters.self, from: required[robot] ?? [:], robot: robot, reads: reads)
        return reads.keys.withLock { $0 }
    }

    func testEveryDeclaredOptionIsReadByItsParameters() throws {
        for declaration in RobotRegistry.declarations {
            XCTAssertEqual(try optionsRead(declaration), Set(declaration.optionNames), "\(declaration.names[0]): declared options nobody reads, or the other way round")
        }
    }

    /// Options the local engine takes beyond what the service's schemas list.
    private let beyondTheCatalog: [String: Set<String>] = [
        "/video/encode": ["format"], "/tus/store": ["path"], "/vimeo/store": ["path"], "/youtube/store": ["path"],
    ]

    /// A declaration written but left out of the registry would be a robot nothing runs.
    func testEveryDeclarationIsRegistered() throws {
        let folder = PackageRoot.path + "/Sources/Spec/Robots/Declarations"
        var declared: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for match in text.matches(of: /public enum (\w+): RobotDeclaration/) { declared.insert(String(match.1)) }
        }
        XCTAssertEqual(declared, Set(RobotRegistry.declarations.map { String(describing: $0) }))
        XCTAssertEqual(RobotRegistry.declarations.count, declared.count, "each declaration is listed once")
    }

    func testEveryDeclaredRobotAndOptionIsOneTheCatalogKnows() {
        var beyond: [String: Set<String>] = [:]
        for declaration in RobotRegistry.declarations {
            XCTAssertFalse(declaration.names.isEmpty, "\(declaration)")
            for name in declaration.names {
                guard let entry = RobotCatalog.bundled.robots[name] else { XCTFail("\(name) is not in the catalog"); continue }
                for option in declaration.optionNames where entry.parameters[option] == nil && RobotCatalog.legacy[option] == nil {
                    beyond[name, default: []].insert(option)
                }
            }
        }
        XCTAssertEqual(beyond, beyondTheCatalog)
    }

    func testEachRobotIsDeclaredOnce() {
        var seen: [String: String] = [:]
        for declaration in RobotRegistry.declarations where ObjectIdentifier(declaration) != ObjectIdentifier(EmulatedStore.self) {
            for name in declaration.names {
                XCTAssertNil(seen.updateValue("\(declaration)", forKey: name), "\(name) is declared twice")
            }
        }
        XCTAssertEqual(RobotCatalog.local, Set(RobotRegistry.byName.keys))
        XCTAssertEqual(RobotCatalog.localExports, Set(EmulatedStore.names).subtracting(seen.keys))
        XCTAssertTrue(RobotCatalog.localExports.contains("/s3/store") || seen["/s3/store"] != nil)
    }

    func testTheCatalogsLocalTablesComeFromTheDeclarations() {
        XCTAssertEqual(RobotCatalog.localParameters["/file/hash"], ["algorithm"])
        XCTAssertEqual(RobotCatalog.localParameters["/upload/handle"], [])
        XCTAssertEqual(RobotCatalog.localValues["/file/hash"]?["algorithm"], ["md5", "sha1", "sha256", "sha384", "sha512"])
        XCTAssertNil(RobotCatalog.localValues["/upload/handle"])
        XCTAssertEqual(RobotCatalog.bundling, ["/file/compress"])
        XCTAssertEqual(RobotCatalog.inputKindsText("/image/resize"), "PDFs or images")
        XCTAssertNil(RobotCatalog.inputKindsText("/file/hash"))
        XCTAssertTrue(RobotCatalog.takes("/audio/encode", kind: "video"))
        XCTAssertFalse(RobotCatalog.takes("/audio/encode", kind: "image"))
        XCTAssertEqual(RobotCatalog.everyLocalRobotTakes, ["ignore_errors"])
    }

    func testAWrongValueIsRefusedNamingTheOption() {
        func refusal<Declaration: RobotDeclaration>(_ declaration: Declaration.Type, _ options: [String: JSONValue]) -> String? {
            do { _ = try declaration.parameters(options, of: declaration.names[0]); return nil } catch { return error.message }
        }
        XCTAssertEqual(refusal(ImageResize.self, ["width": .string("wide")]), "'width' must be a whole number from 1 to 20000, not 'wide'")
        XCTAssertEqual(refusal(ImageResize.self, ["width": .double(2.5)]), "'width' must be a whole number from 1 to 20000, not 2.5")
        XCTAssertNil(refusal(ImageResize.self, ["width": .double(200)]), "2.0 counts as 2")
        XCTAssertEqual(refusal(FileCompress.self, ["gzip": .string("yes")]), "'gzip' must be true or false, not 'yes'")
        XCTAssertEqual(refusal(FileHash.self, ["algorithm": .string("sha265")]),
                       "the local engine's /file/hash does not run algorithm 'sha265'; did you mean 'sha256'? it runs md5, sha1, sha256, sha384, sha512")
        XCTAssertEqual(refusal(EmulatedStore.self, ["credentials": .string("../up")]), "credentials '../up' must be a name of letters, digits, '.', '-' and '_'")
        XCTAssertEqual(refusal(HTTPImport.self, ["url": .array([.string("https://a.example/x"), .int(3)])]),
                       "'url' must be a string or a list of strings, not a list of other values")
        XCTAssertNil(refusal(ImageResize.self, ["watermark_opacity": .int(7)]), "without a watermark_url its options count for nothing")
        for (options, option) in [(["crop": JSONValue.string("all")], "crop"), (["watermark_url": .string("https://a.example/w"), "watermark_size": .string("big")], "watermark_size"),
                                  (["rotation": .int(45)], "rotation"), (["height": .bool(true)], "height")] {
            XCTAssertThrowsError(try ImageResize.parameters(options, of: "/image/resize")) { error in
                XCTAssertEqual((error as? RobotOptionError)?.option, option, "the error names the option it is about")
            }
        }
        XCTAssertEqual(refusal(ImageResize.self, ["watermark_url": .string("https://a.example/w.png"), "watermark_opacity": .int(7)]),
                       "watermark_opacity must be a number from 0 to 1")
    }

    func testParametersAreDecodedIntoTheirTypes() throws {
        let resize = try ImageResize.parameters(
            ["width": .int(320), "crop": .object(["x1": .int(0), "y1": .int(0), "x2": .int(10), "y2": .int(20)]), "rotation": .int(-90), "format": .string("WEBP")],
            of: "/image/resize")
        XCTAssertEqual(resize.width, 320)
        XCTAssertEqual(resize.height, 0)
        XCTAssertEqual(resize.crop, ImageResize.Region(x1: 0, y1: 0, x2: 10, y2: 20))
        XCTAssertEqual(resize.quarterTurns, 3)
        XCTAssertEqual(resize.format, "webp")
        XCTAssertNil(resize.watermark)
        XCTAssertThrowsError(try ImageResize.parameters(["rotation": .null], of: "/image/resize"), "null is given, and no rotation")
        let filter = try FileFilter.parameters(["accepts": .array([.array([.string("${file.size}"), .string(">"), .double(2.0)])])], of: "/file/filter")
        XCTAssertEqual(filter.accepts?.first?.right, .double(2.0), "an option is read as written: 2.0 stays a fraction")
        let thumbs = try VideoThumbs.parameters(["offsets": .array([.int(2), .string("50%")])], of: "/video/thumbs")
        XCTAssertEqual(thumbs.offsets, [.seconds(2), .percent(50)])
        let imports = try HTTPImport.parameters(["url": .string("https://a.example/1 | https://a.example/2"), "ignore_errors": .array([.string("import")])], of: "/http/import")
        XCTAssertEqual(imports.urls, ["https://a.example/1", "https://a.example/2"])
        XCTAssertTrue(imports.skipsFailures)
    }

    /// Parameters may use any Decodable type: the decoder reads them from the options' JSON values.
    func testTheDecoderReadsStandardDecodableTypes() throws {
        struct Sample: Decodable, Equatable {
            var count: Int8
            var size: UInt64
            var ratio: Float
            var names: [String]
            var nested: [String: Bool]
            var missing: String?
        }
        let options: [String: JSONValue] = ["count": .double(3), "size": .int(5), "ratio": .double(0.5), "names": .array([.string("a")]), "nested": .object(["on": .bool(true)])]
        XCTAssertEqual(try StepOptionsDecoder.decode(Sample.self, from: options, robot: "/x/y"),
                       Sample(count: 3, size: 5, ratio: 0.5, names: ["a"], nested: ["on": true], missing: nil))
        XCTAssertThrowsError(try StepOptionsDecoder.decode(Sample.self, from: options.merging(["count": .int(300)]) { $1 }, robot: "/x/y")) { error in
            XCTAssertEqual((error as? RobotOptionError)?.option, "count")
        }
        XCTAssertThrowsError(try StepOptionsDecoder.decode(Sample.self, from: options.merging(["names": .array([.int(1)])]) { $1 }, robot: "/x/y")) { error in
            XCTAssertEqual((error as? RobotOptionError)?.option, "names")
            XCTAssertTrue((error as? RobotOptionError)?.message.hasPrefix("'names.0' cannot be read") == true, "\(error)")
        }
    }

    /// The table in docs/engine.md lists what the registry declares.
    func testTheDocsTableIsTheRegistrys() throws {
        let text = try String(contentsOfFile: PackageRoot.path + "/docs/engine.md", encoding: .utf8)
        let begin = "<!-- robots table: from RobotRegistry (Tests/SpecTests/Robots/RobotRegistryTests.swift) -->\n"
        let end = "<!-- end of robots table -->"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) else {
            return XCTFail("docs/engine.md has no robots table between its markers")
        }
        let expected = Self.docsTable()
        XCTAssertEqual(String(text[start.upperBound..<stop.lowerBound]), expected, "docs/engine.md's robots table should read:\n\(expected)")
    }

    /// The docs' table of local robots: name, options, what it takes, how its results are cached.
    static func docsTable() -> String {
        var lines = ["| robot | options | takes | results cached |", "| --- | --- | --- | --- |"]
        for declaration in RobotRegistry.declarations {
            let name = ObjectIdentifier(declaration) == ObjectIdentifier(EmulatedStore.self) ? "every `/…/store` not declared above (emulated)" : declaration.names.map { "`\($0)`" }.joined(separator: ", ")
            let options = declaration.optionNames.isEmpty ? "none" : declaration.optionNames.map { "`\($0)`" }.joined(separator: ", ")
            let takes: String
            switch declaration.inputs {
            case .anyFile: takes = "any file"
            case .kinds(let kinds): takes = kinds.sorted { $0.rawValue < $1.rawValue }.map(\.plural).joined(separator: ", ")
            }
            let cached: String
            switch declaration.digest {
            case .perSourceFile: cached = "per source file"
            case .bundle: cached = "with the Assembly (one result of all inputs)"
            case .wholeAssembly: cached = "with the Assembly"
            }
            lines.append("| \(name) | \(options) | \(takes) | \(cached) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
