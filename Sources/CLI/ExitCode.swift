/// The exit codes documented in the README.
public enum ExitCode {
    /// Success; for `diff --exit-code`, no changes.
    public static let success: Int32 = 0
    /// The work failed: invalid input, a policy violation, a failed Assembly.
    public static let failure: Int32 = 1
    /// `diff --exit-code` only: the plans differ.
    public static let changes: Int32 = 2
    /// The command line could not be understood.
    public static let usage: Int32 = 64
    /// `run` interrupted by Ctrl-C: state is saved, the same command resumes.
    public static let interrupted: Int32 = 130
}
