/// A command's arguments as typed values, made once from its checked command line (Terraform's
/// `command/arguments`): every option is read by name here, in `Arguments/`, and nowhere else.
protocol CommandArguments: Sendable {
    /// Reads and checks every argument and option; the errors are the command's usage errors.
    init(_ parsed: ParsedArguments) throws(UsageError)
}

