import Basics
import Foundation
import Spec

/// How a manifest's policy differs from its policy at a git revision (`diff --base`): a
/// reviewer sees a policy loosened, replaced or dropped, not only what the manifest asks for.
enum PolicyChange {
    /// The most changed lines shown.
    static let listedLines = 20

    /// Lines describing the change, or `nil` when the policy is the same.
    static func describe(base: String?, revision: GitRevision, current: Manifest?, manifestPath: String) throws -> String? {
        let folder = FolderPath.of(manifestPath)
        func local(_ name: String) -> String { folder.isEmpty ? name : folder + "/" + name }
        let now = current?.policy?.value
        switch (base, now) {
        case (nil, nil):
            return nil
        case (let base?, nil):
            return "- policy \(base.printable): named at \(revision.shown), no longer named: nothing is checked now\n"
        case (nil, let now?):
            return "+ policy \(now.printable): new since \(revision.shown)\n"
        case (let base?, let now?):
            if base.contains("://") || now.contains("://") {
                return base == now ? nil : "~ policy \(base.printable) -> \(now.printable)\n"
            }
            let before = String(decoding: try revision.show(base) ?? Data(), as: UTF8.self)
            let after = (try? FileReading.read(local(now))).map { String(decoding: $0, as: UTF8.self) } ?? ""  // unreadable: planning says so
            guard base != now || before != after else { return nil }
            let old = before.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let new = after.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let removed = old.filter { !new.contains($0) && !$0.isEmpty }.map { "    - \($0.printable)" }
            let added = new.filter { !old.contains($0) && !$0.isEmpty }.map { "    + \($0.printable)" }
            let lines = removed + added
            var text = "~ policy \(base == now ? now.printable : "\(base.printable) -> \(now.printable)") changed since \(revision.shown)\n"
            text += lines.prefix(listedLines).joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
            if lines.count > listedLines { text += "    ... and \(lines.count - listedLines) more lines\n" }
            return text
        }
    }
}
