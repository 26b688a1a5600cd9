/// What a run does once its Assemblies have ended, for the CLI to name while it takes time.
public enum RunPhase: Sendable, Equatable {
    /// The results file (and, after the downloads, the run's state) is being written.
    case writingResults
    /// Result files are being fetched into download folders: `done` of `total` files so far.
    case downloading(done: Int, total: Int)
    /// What no result names any more is being removed (the embedded engine's files, old downloads).
    case cleaningUp

    /// The phase's name as people read it: "writing results", "downloading", "cleaning up".
    public var name: String {
        switch self {
        case .writingResults: "writing results"
        case .downloading: "downloading"
        case .cleaningUp: "cleaning up"
        }
    }
}
