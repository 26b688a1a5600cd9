import Basics

/// A job's work per step, as plans say it: "w250: 12 files; w100, w300: cached".
enum StepWork {
    /// Steps given the same number of files are named together, in the manifest's `order`; cached ones last.
    static func describe(_ filesPerStep: [String: Int], order: [String]) -> String {
        let ordered = order.filter { filesPerStep[$0] != nil } + filesPerStep.keys.filter { !order.contains($0) }.sorted()
        var groups: [(count: Int, steps: [String])] = []
        for step in ordered {
            let count = filesPerStep[step] ?? 0
            if let index = groups.firstIndex(where: { $0.count == count }) { groups[index].steps.append(step) } else { groups.append((count, [step])) }
        }
        let running = groups.filter { $0.count > 0 }.map { "\($0.steps.joined(separator: ", ")): \(plural($0.count, "file"))" }
        let cached = groups.filter { $0.count == 0 }.flatMap(\.steps)
        return (running + (cached.isEmpty ? [] : ["\(cached.joined(separator: ", ")): cached"])).joined(separator: "; ").printable
    }
}
