/// The one way async work fans out here: each element's `operation` runs as a child task, at
/// most `width` at once (the next starts as one ends), and each outcome reaches `receive` on
/// the calling task as it arrives, so the caller's own state needs no lock. An error thrown by
/// `operation` or `receive` cancels the rest and is rethrown.
public func forEachConcurrently<Element: Sendable, Outcome: Sendable>(
    _ elements: [Element], width: Int,
    operation: @escaping @Sendable (Element) async throws -> Outcome,
    receive: (Outcome) async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Outcome.self) { group in
        var next = 0
        func startNext() {
            guard next < elements.count else { return }
            let element = elements[next]
            next += 1
            group.addTask { try await operation(element) }
        }
        for _ in 0..<max(1, width) { startNext() }
        while let outcome = try await group.next() {
            try await receive(outcome)
            startNext()
        }
    }
}

/// `forEachConcurrently` for work that cannot fail.
public func forEachConcurrently<Element: Sendable, Outcome: Sendable>(
    _ elements: [Element], width: Int,
    operation: @escaping @Sendable (Element) async -> Outcome,
    receive: (Outcome) async -> Void
) async {
    await withTaskGroup(of: Outcome.self) { group in
        var next = 0
        func startNext() {
            guard next < elements.count else { return }
            let element = elements[next]
            next += 1
            group.addTask { await operation(element) }
        }
        for _ in 0..<max(1, width) { startNext() }
        while let outcome = await group.next() {
            await receive(outcome)
            startNext()
        }
    }
}
