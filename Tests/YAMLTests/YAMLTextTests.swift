import Basics
import XCTest
import YAML

/// The YAML writer: whatever a string holds, what it writes reads back as that string, and a
/// comment stays one comment.
final class YAMLTextTests: XCTestCase {
    /// Strings a name or value may hold that YAML would read as something else when spliced raw.
    static let hostile: [String] = [
        "", " ", "  lead", "trail ", "x\n/http/import: {url: {type: string}}\nfields: {allowed: [anything]}\n#",
        "a\nb", "a\r\nb", "a\rb", "tab\there", "a # b", "#x", "a: b", "a:b", "key:", "'single'", "\"double\"", "back\\slash",
        "-", "-x", "- x", "--", "---", "...", "?", "? x", "*alias", "&anchor", "!tag", "!!str", "|", "|-", ">", ">+", "%YAML", "@at", "`tick",
        ",", "[x]", "{x: y}", "a, b", "a]", "a}", "=", "<<", "~", "yes", "Yes", "no", "NO", "on", "off", "y", "n", "true", "False", "null", "Null", "NULL",
        "1.0", "1", "-1", "+1", "0x1F", "0x1_F", "0o17", "017", "0b101", "1_000", "1e5", "1E+5", ".5", "1.", ".inf", "-.inf", ".nan", "nan", "inf",
        "2001-12-14", "12:30:00", "190:20:30", "1d", "720p", "web/mp4/720p", ".", "/image/resize", "_x", "a.b-c_d",
        "ünïcode", "名前", "emoji 🎞️", "z\u{200D}w", "\u{2028}", "a\u{2029}b", "\u{85}", "\u{A0}", "\u{FEFF}bom", "\u{202E}evil", "\u{7F}", "\u{1B}[31m",
        "\u{0}", "\u{FFFE}", "\u{10FFFF}", "\u{E000}", "trailing\\", "$x", "${VAR}", "a##[add-mask]b", "##vso[x]", "###", "x ## y",
    ]

    func testEveryScalarReadsBackAsItsString() throws {
        for text in Self.hostile + randomStrings(count: 400) {
            let scalar = YAMLText.scalar(text)
            // As a value, as a key, and in a flow sequence.
            let documents = ["value: \(scalar)\n", "\(scalar): 1\n", "list: [\(scalar), \(scalar)]\n"]
            for (place, document) in documents.enumerated() {
                let root = try parsedRoot(document)
                XCTAssertEqual(root.pairs?.count, 1, "one key in \(document.debugDescription)")
                let pair = try XCTUnwrap(root.pairs?.first)
                let node: Node? = [pair.value, pair.key, pair.value.elements?.last][place]
                XCTAssertEqual(node?.scalar?.resolved(tag: node?.tag), .string(text), "\(text.debugDescription) written \(scalar)")
                if place == 2 { XCTAssertEqual(pair.value.elements?.count, 2, document) }
            }
            XCTAssertFalse(scalar.contains(where: \.isNewline), "one line: \(scalar.debugDescription)")
        }
    }

    func testQuotedAlwaysQuotesAndFlowSequencesKeepEachItem() throws {
        XCTAssertEqual(YAMLText.quoted("site"), "\"site\"")
        XCTAssertEqual(YAMLText.scalar("site"), "site")
        XCTAssertEqual(YAMLText.scalar("a\nb"), #""a\nb""#)
        XCTAssertEqual(YAMLText.scalar("a\u{2028}b"), #""a\u2028b""#)
        let items = Array(Self.hostile.prefix(40))
        let root = try parsedRoot("list: \(YAMLText.flowSequence(items))\n")
        XCTAssertEqual(root.pairs?.first?.value.elements?.compactMap { $0.scalar?.resolved(tag: $0.tag) }, items.map { .string($0) })
    }

    func testRunsOfHashesStartNoCIWorkflowCommand() throws {
        for text in ["a##[add-mask]b", "##vso[x]", "###[", "##"] {
            let written = [YAMLText.scalar(text), YAMLText.quoted(text), YAMLText.comment(text), YAMLText.json(.string(text))]
            for piece in written { XCTAssertFalse(piece.contains("##"), piece) }
            XCTAssertTrue(YAMLText.scalar(text).hasPrefix("\""), YAMLText.scalar(text))
            for piece in [written[0], written[1], written[3]] {
                let root = try parsedRoot("value: \(piece)\n")
                let node = try XCTUnwrap(root.pairs?.first?.value)
                XCTAssertEqual(node.scalar?.resolved(tag: node.tag), .string(text), piece)
            }
        }
        XCTAssertEqual(YAMLText.quoted("a##[b"), #""a#\x23[b""#)
    }

    func testACommentIsOneLineWhateverItHolds() throws {
        for text in Self.hostile + randomStrings(count: 200) {
            let comment = YAMLText.comment(text)
            XCTAssertTrue(comment.hasPrefix("# "))
            XCTAssertFalse(comment.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" }, comment.debugDescription)
            let root = try parsedRoot("a: 1   \(comment)\nb: 2\n")
            XCTAssertEqual(root.pairs?.map(\.keyText), ["a", "b"], "\(text.debugDescription) as \(comment)")
        }
    }

    func testJSONReadsBackAsTheSameValue() throws {
        for text in Self.hostile {
            let value = JSONValue.object([text: .array([.string(text), .int(1), .bool(true), .null])])
            let root = try parsedRoot("v: \(YAMLText.json(value))\n")
            let pair = try XCTUnwrap(root.pairs?.first?.value.pairs?.first)
            XCTAssertEqual(pair.keyText, text)
            XCTAssertEqual(pair.value.elements?.first?.scalar?.text, text)
            XCTAssertEqual(pair.value.elements?.map { $0.scalar?.resolved(tag: $0.tag) }, [.string(text), .int(1), .bool(true), .null])
        }
    }

    /// Strings drawn (with a fixed seed) from the characters YAML gives meaning to, controls,
    /// line breaks, digits and a few scripts.
    private func randomStrings(count: Int) -> [String] {
        var generator = SplitMix(seed: 0x5EED_7E47)
        let alphabet = Array("-?:,[]{}#&*!|>'\"%@`~=<. \t\n\r\\/$0123456789abcdefxyoEe_YNyn".unicodeScalars)
            + ["\u{0}", "\u{7F}", "\u{85}", "\u{A0}", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{202E}", "é", "名", "🎞", "\u{FFFF}"]
        return (0..<count).map { _ in
            let length = Int(generator.next() % 9)
            var text = String.UnicodeScalarView()
            for _ in 0..<length { text.append(alphabet[Int(generator.next() % UInt64(alphabet.count))]) }
            return String(text)
        }
    }
}

/// A small seeded generator, so a failure is the same on every run.
private struct SplitMix: RandomNumberGenerator {
    var seed: UInt64

    mutating func next() -> UInt64 {
        seed &+= 0x9E37_79B9_7F4A_7C15
        var value = seed
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
