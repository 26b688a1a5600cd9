import Foundation
@testable import Planning
import TestSupport
import XCTest

final class GlobWalkerTests: XCTestCase {
    /// a.txt b.txt c.md .hidden.txt .git/config.txt folder.txt/inner.txt
    /// sub/d.txt sub/.secret/e.txt sub/deeper/f.txt empty/
    private func makeTree() throws -> TemporaryDirectory {
        let tree = try TemporaryDirectory()
        for path in ["a.txt", "b.txt", "c.md", ".hidden.txt", ".git/config.txt", "folder.txt/inner.txt",
                     "sub/d.txt", "sub/.secret/e.txt", "sub/deeper/f.txt"] {
            try tree.write(path, "content of \(path)\n")
        }
        try tree.makeDirectory("empty")
        return tree
    }

    private func files(_ source: String, in base: String, line: UInt = #line) -> [String] {
        var walker = GlobWalker(base: base)
        do {
            return walker.files(matching: try GlobPattern(source)).sorted()
        } catch {
            XCTFail("bad pattern \(source): \(error)", line: line)
            return []
        }
    }

    func testPatternsOnARealTree() throws {
        let tree = try makeTree()
        defer { tree.remove() }
        let cases: [(String, [String], UInt)] = [
            ("*.txt", ["a.txt", "b.txt"], #line),
            ("*", ["a.txt", "b.txt", "c.md"], #line),
            ("**/*.txt", ["a.txt", "b.txt", "folder.txt/inner.txt", "sub/d.txt", "sub/deeper/f.txt"], #line),
            ("**", ["a.txt", "b.txt", "c.md", "folder.txt/inner.txt", "sub/d.txt", "sub/deeper/f.txt"], #line),
            ("sub/**", ["sub/d.txt", "sub/deeper/f.txt"], #line),
            ("{a,c}.*", ["a.txt", "c.md"], #line),
            ("{sub,sub/deeper}/*.txt", ["sub/d.txt", "sub/deeper/f.txt"], #line),
            ("[abc].*", ["a.txt", "b.txt", "c.md"], #line),
            ("[!a].txt", ["b.txt"], #line),
            ("?.md", ["c.md"], #line),
            ("sub/d.txt", ["sub/d.txt"], #line),
            ("./sub//d.txt", ["sub/d.txt"], #line),
            (".hidden.txt", [".hidden.txt"], #line),
            (".*.txt", [".hidden.txt"], #line),
            (".git/config.txt", [".git/config.txt"], #line),
            (".git/*", [".git/config.txt"], #line),
            ("sub/.secret/*.txt", ["sub/.secret/e.txt"], #line),
            ("**/.secret/*.txt", ["sub/.secret/e.txt"], #line),
            ("*/*.txt", ["folder.txt/inner.txt", "sub/d.txt"], #line),
            ("sub", [], #line),
            ("folder.txt", [], #line),
            ("empty/**", [], #line),
            ("missing.txt", [], #line),
            ("missing/*.txt", [], #line),
            ("a.txt/x", [], #line),
        ]
        for (pattern, expected, line) in cases {
            XCTAssertEqual(files(pattern, in: tree.path, line: line), expected, pattern, line: line)
        }
    }

    /// A folder is listed in the byte order of the paths it leads to (a folder's name as if
    /// followed by '/'): names sharing their first eight bytes, shorter names, a folder next to
    /// files whose names continue past its own.
    func testAFolderIsListedInTheByteOrderOfThePathsItLeadsTo() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        let files = ["abcdefgh", "abcdefgh0", "abcdefgh.txt", "abcdefghi.txt", "abcdefghi-y", "abcdefg", "b", "a", "Z", "é", "ab.c", "ab-c", "ab0"]
        for name in files + ["abcdefghi/x", "ab/c"] { try tree.write(name, name) }
        let listed = try DirectoryListing.list(tree.path).map { $0.kind == .directory ? $0.name + "/" : $0.name }
        XCTAssertEqual(listed, (files + ["abcdefghi/", "ab/"]).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }

    func testWalkFindsNoWarningsOnAPlainTree() throws {
        let tree = try makeTree()
        defer { tree.remove() }
        var walker = GlobWalker(base: tree.path)
        _ = walker.files(matching: try GlobPattern("**"))
        XCTAssertEqual(walker.collectedWarnings, [])
    }

    func testANameThatIsNotUTF8IsSkippedWithAWarning() throws {
        let tree = try makeTree()
        defer { tree.remove() }
        // "sub/\xff.txt": a name Swift strings cannot hold without changing it.
        let path = Array((tree.path + "/sub/").utf8) + [0xFF] + Array(".txt".utf8) + [0]
        let descriptor = path.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        close(descriptor)
        var walker = GlobWalker(base: tree.path)
        XCTAssertEqual(walker.files(matching: try GlobPattern("sub/*.txt")), ["sub/d.txt"])
        XCTAssertEqual(walker.collectedWarnings.map(\.message), ["'sub/\\xff.txt' has a name that is not UTF-8; skipped (rename it to plan it)"])
    }

    func testAbsolutePatternGivesAbsolutePaths() throws {
        let tree = try makeTree()
        defer { tree.remove() }
        let found = files(tree.path + "/sub/*.txt", in: "/nonexistent")
        XCTAssertEqual(found, [tree.path + "/sub/d.txt"])
    }

    func testParentFolderPattern() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        try tree.write("site/pipeline.yml", "")
        try tree.write("shared/logo.png", "png")
        XCTAssertEqual(files("../shared/*.png", in: tree.path + "/site"), ["../shared/logo.png"])
    }

    /// Going up with '..' and back down into the base folder is not a symbolic link loop.
    func testParentFolderPatternComingBackIntoTheBase() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        try tree.write("site/a.txt", "a")
        var walker = GlobWalker(base: tree.path + "/site")
        let found = walker.files(matching: try GlobPattern("../site/*.txt"))
        XCTAssertEqual(found, ["../site/a.txt"])
        XCTAssertEqual(walker.collectedWarnings, [])
    }

    func testSymlinksAreFollowed() throws {
        let tree = try makeTree()
        defer { tree.remove() }
        try tree.symlink("link.txt", to: "a.txt")
        try tree.symlink("linkdir", to: "sub")
        XCTAssertEqual(files("*.txt", in: tree.path), ["a.txt", "b.txt", "link.txt"])
        XCTAssertEqual(files("linkdir/*.txt", in: tree.path), ["linkdir/d.txt"])
        XCTAssertEqual(files("linkdir/d.txt", in: tree.path), ["linkdir/d.txt"])
        XCTAssertEqual(files("**/d.txt", in: tree.path), ["linkdir/d.txt", "sub/d.txt"])
        // A link to a folder is a folder, never a file.
        XCTAssertEqual(files("link*", in: tree.path), ["link.txt"])
    }

    func testAFolderPastPATHMAXIsSkippedWithAWarning() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        try tree.write("a.txt", "a")
        // Deeper than PATH_MAX (4096) once joined, made with relative steps.
        let name = String(repeating: "d", count: 200)
        var folder = open(tree.path, O_RDONLY | O_DIRECTORY)
        for _ in 0..<22 {
            XCTAssertEqual(mkdirat(folder, name, 0o755), 0)
            let inner = openat(folder, name, O_RDONLY | O_DIRECTORY)
            close(folder)
            folder = inner
        }
        close(folder)
        var walker = GlobWalker(base: tree.path)
        let found = walker.files(matching: try GlobPattern("**/*.txt"))
        XCTAssertEqual(found, ["a.txt"])
        XCTAssertTrue(walker.collectedWarnings.contains { $0.message.contains("File name too long") }, "\(walker.collectedWarnings)")
    }

    func testSymlinkLoopIsReportedAndTheWalkFinishes() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        try tree.write("a.txt", "a")
        try tree.write("dir/b.txt", "b")
        try tree.symlink("dir/loop", to: "..")
        var walker = GlobWalker(base: tree.path)
        let found = walker.files(matching: try GlobPattern("**/*.txt")).sorted()
        XCTAssertEqual(found, ["a.txt", "dir/b.txt"])
        XCTAssertEqual(walker.collectedWarnings, [GlobWalker.Warning(
            id: "plan.symlink-loop", message: "'dir/loop' leads back into a folder above it (symbolic link loop); not followed")])
    }

    func testBrokenSymlinkIsReported() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        try tree.write("a.txt", "a")
        try tree.symlink("gone.txt", to: "nowhere.txt")
        try tree.makeDirectory("sub")
        try tree.symlink("sub/gone.txt", to: "../nowhere.txt")
        var walker = GlobWalker(base: tree.path)
        let found = walker.files(matching: try GlobPattern("**/*.txt")).sorted()
        XCTAssertEqual(found, ["a.txt"])
        XCTAssertEqual(Set(walker.collectedWarnings), [
            GlobWalker.Warning(id: "plan.broken-symlink", message: "'gone.txt' is a symbolic link to nothing; skipped"),
            GlobWalker.Warning(id: "plan.broken-symlink", message: "'sub/gone.txt' is a symbolic link to nothing; skipped"),
        ])
    }

    func testWarningsAreNotRepeated() throws {
        let tree = try TemporaryDirectory()
        defer { tree.remove() }
        try tree.write("a.txt", "a")
        try tree.symlink("gone.txt", to: "nowhere.txt")
        var walker = GlobWalker(base: tree.path)
        _ = walker.files(matching: try GlobPattern("*.txt"))
        _ = walker.files(matching: try GlobPattern("{*.md,*.txt}"))
        XCTAssertEqual(walker.collectedWarnings.map(\.id), ["plan.broken-symlink"])
    }
}
