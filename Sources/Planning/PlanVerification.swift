import Foundation

/// Checks that the files of a reviewed plan are still what was reviewed.
public enum PlanVerification {
    /// One line per file that is missing or whose size or content changed; empty when all match.
    public static func differences(_ plan: Plan, baseDirectory: String, workers: Int = 2) -> [String] {
        let files = plan.assemblies.flatMap(\.files)
        var seen: Set<[UInt8]> = []
        let unique = files.filter { seen.insert(Array($0.path.utf8)).inserted }
        let digests = FileHasher.digests(paths: unique.map { $0.path.hasPrefix("/") ? $0.path : baseDirectory + "/" + $0.path }, workers: workers)
        var differences: [String] = []
        for (file, digest) in zip(unique, digests) {
            switch digest {
            case .failure(let error):
                differences.append("\(file.path): \(error.description)")
            case .success(let actual) where actual.size != file.size:
                differences.append("\(file.path): size \(file.size) in the plan, \(actual.size) now")
            case .success(let actual) where actual.digest != file.digest:
                differences.append("\(file.path): content changed (sha256 \(file.sha256.prefix(12))… in the plan, \(actual.sha256.prefix(12))… now)")
            default:
                break
            }
        }
        return differences
    }
}
