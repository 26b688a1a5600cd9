import Foundation
import TestSupport
import XCTest

/// Three concurrency styles: async/await, `Mutex`/`Atomic`, and the blocking pool's folder
/// (`Sources/Basics/Blocking/`: `BlockingPool`, `ParallelWork`, `BlockingWait`, `Drain`,
/// `WakeSignal`, `DedicatedThread`). Every thread, GCD, semaphore, pthread or Foundation lock,
/// actor, `nonisolated(unsafe)` and sleep lives in that folder; anywhere else in `Sources/` one
/// fails this test at its file and line.
final class ConcurrencyStylesTests: XCTestCase {
    /// What is only allowed in the blocking pool's folder, and what to use instead.
    static let forbidden: [(pattern: String, instead: String)] = [
        (#"\bimport\s+Dispatch\b|\bDispatch(?:Semaphore|Queue|Group|WorkItem|Source|Time|TimeInterval|WallTime)\b"#,
         "GCD: use async/await, or BlockingPool / ParallelWork / WakeSignal"),
        (#"\bThread\s*(?:\{|\(|\.detachNewThread)"#, "a thread: use DedicatedThread or a BlockingPool"),
        (#"\bThread\s*\.\s*sleep\b|(?<![\w.])(?<!func )(?:usleep|nanosleep|sleep)\s*\((?!\s*(?:for|until|nanoseconds)\s*:)"#,
         "a sleep: wait on a WakeSignal, a Drain, or the injected MonotonicClock"),
        (#"\bpthread_\w+"#, "a pthread primitive: use Mutex, or WakeSignal to wait"),
        (#"\bNS(?:Recursive)?Lock\b|\bNSCondition(?:Lock)?\b|\bOperationQueue\b"#, "a Foundation lock or queue: use Mutex"),
        (#"(?:^|[\s;{])(?:(?:public|package|internal|fileprivate|private|final|distributed)\s+)*actor\s+[A-Z]\w*|@MainActor\b|@globalActor\b"#,
         "an actor: use a final Sendable class over a Mutex"),
        (#"\bnonisolated\s*\(\s*unsafe\s*\)"#, "nonisolated(unsafe): use Atomic, Mutex or a Sendable holder"),
        (#"\bMutex<\(*(?:@Sendable\s+)?\([^)]*\)\s*(?:async\s+)?(?:throws\s+)?->"#,
         "a function held by a Mutex gains two thunks at each withLock: hold a Callback"),
    ]

    /// The lines of `text` (a Swift file at `path`) that use what only the blocking pool's folder
    /// may use: `path:line: what (instead)`. Comments are not code and are skipped.
    static func violations(in text: String, path: String) -> [String] {
        let expressions = forbidden.compactMap { entry in
            (try? NSRegularExpression(pattern: entry.pattern)).map { ($0, entry.instead) }  // a bad pattern fails the list test below
        }
        var found: [String] = []
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let code = codeOnly(line)
            let range = NSRange(code.startIndex..., in: code)
            for (expression, instead) in expressions {
                guard let match = expression.firstMatch(in: code, range: range), let matched = Range(match.range, in: code) else { continue }
                let what = code[matched].trimmingCharacters(in: .whitespaces)
                found.append("\(path):\(index + 1): '\(what)' outside Sources/Basics/Blocking (\(instead))")
            }
        }
        return found
    }

    /// `line` without a comment: a line that is one, or a trailing `// ...`.
    private static func codeOnly(_ line: String) -> String {
        if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { return "" }
        guard let comment = line.range(of: " //") else { return line }
        return String(line[..<comment.lowerBound])
    }

    func testPatternsCompile() {
        for entry in Self.forbidden {
            XCTAssertNoThrow(try NSRegularExpression(pattern: entry.pattern), entry.pattern)
        }
    }

    func testEveryForbiddenUseIsNamedAtItsLine() {
        let planted = """
        import Dispatch
        let queue = DispatchQueue(label: "x")
        let semaphore = DispatchSemaphore(value: 0)
        Thread { work() }.start()
        Thread.sleep(forTimeInterval: 0.1)
        usleep(1000)
        pthread_rwlock_rdlock(lock)
        let lock = NSLock()
        actor Counter {}
        private actor Pacer: Hold {}
        @MainActor func draw() {}
        nonisolated(unsafe) var writer: Int32 = -1
        sleep(1)
        private let observer = Mutex<(@Sendable (Record) -> Void)?>(nil)
        """
        let found = Self.violations(in: planted, path: "Sources/X/Planted.swift")
        XCTAssertEqual(found.map { $0.components(separatedBy: ":").prefix(2).joined(separator: ":") }, (1...14).map { "Sources/X/Planted.swift:\($0)" }, "\(found)")
        XCTAssertTrue(found[0].contains("'import Dispatch'"), found[0])
        XCTAssertTrue(found[8].contains("use a final Sendable class over a Mutex"), found[8])
        XCTAssertTrue(found[13].contains("hold a Callback"), found[13])
    }

    func testAllowedWordsAreNotTakenForPrimitives() {
        let allowed = """
        let factor = margin.factor * 2  // a factor 'actor Foo' in a comment
        /// DispatchQueue and usleep in a doc comment
        try await Task.sleep(for: .seconds(1))
        try await clock.sleep(for: wait)
        do { try await sleep(for: duration) } catch {}
        public func sleep(for duration: Duration) async throws {}
        let state = Mutex(State())
        DedicatedThread.start("pipeline.http") { run() }
        private let pending = Mutex<[@Sendable () -> Void]>([])
        private let state = Mutex<(count: Int, waiters: [WakeSignal])>((0, []))
        private let observer = Mutex<Callback<Record>?>(nil)
        """
        XCTAssertEqual(Self.violations(in: allowed, path: "Sources/X/Allowed.swift"), [])
    }

    func testOnlyTheBlockingFolderUsesThreadsLocksAndSleeps() throws {
        let root = PackageRoot.path + "/Sources"
        let files = (FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("Basics/Blocking/") }
        XCTAssertGreaterThan(files.count, 300, "the sources were found")
        var found: [String] = []
        for file in files.sorted() {
            found += Self.violations(in: try String(contentsOfFile: root + "/" + file, encoding: .utf8), path: "Sources/" + file)
        }
        XCTAssertEqual(found, [], "\n" + found.joined(separator: "\n"))
    }
}
