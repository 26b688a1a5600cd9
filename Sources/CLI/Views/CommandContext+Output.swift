import Basics

/// What every command's views share: diagnostics for people or as JSON, and the Auth Secret
/// that is missing.
extension CommandContext {
    /// The Auth Secret in `variable`; nil, said with how to set it, when it is unset or empty.
    func secret(in variable: String) -> String? {
        guard let secret = environment[variable], !secret.isEmpty else {
            output.failure("$\(variable) is not set", hint: "export the Auth Secret in $\(variable) (or name another variable with --secret-env)")
            return nil
        }
        return secret
    }

    /// Diagnostics rendered for people (and GitHub Actions when running there) on standard error.
    func report(_ diagnostics: [Diagnostic], sources: SourceStore) {
        guard !diagnostics.isEmpty else { return }
        let renderer = DiagnosticRenderer(sources: sources, githubActions: environment["GITHUB_ACTIONS"] == "true", palette: output.colors.error)
        output.error(renderer.render(diagnostics))
    }

    /// Diagnostics as a JSON document on standard output.
    func reportJSON(_ diagnostics: [Diagnostic], extra: [String: JSONValue] = [:]) {
        var object = extra
        object["diagnostics"] = .array(diagnostics.sortedByLocation().map(\.json))
        output.out(JSONValue.object(object).serialized(pretty: true) + "\n")
    }
}
