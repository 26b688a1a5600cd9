/// A command's name, help and the options and arguments it accepts.
struct CommandSpec: Sendable {
    /// One `--option`.
    struct Option: Sendable {
        var name: String
        var valueName: String?
        var help: String
        var repeatable = false
        /// The only values it takes, offered by shell completion.
        var choices: [String] = []
        /// A one-letter spelling (`-q` for `--quiet`), for flags.
        var short: Character? = nil
    }

    /// One positional argument.
    struct Argument: Sendable {
        var name: String
        var help: String
        var optional = false
        var variadic = false
        /// The only values it takes, offered by shell completion.
        var choices: [String] = []
        /// A manifest: when the command is given none, found as every command finds its
        /// manifest (`ManifestDiscovery`); a folder means its `pipeline.yml`.
        var isManifest = false
    }

    var name: String
    var summary: String
    var discussion: String?
    var arguments: [Argument] = []
    var options: [Option] = []
    var examples: [String] = []

    /// Options every command accepts.
    static let helpOption = Option(name: "help", help: "Show this help.")

    /// For commands that make HTTPS requests: trust a private CA (as do CURL_CA_BUNDLE, SSL_CERT_FILE, SSL_CERT_DIR).
    static let caCertOption = Option(name: "ca-cert", valueName: "FILE", help: "Trust the CA certificates in this PEM file for HTTPS (default: the system's; see SSL_CERT_FILE).")

    /// For commands that use the Auth Secret: the environment variable it is read from (never an argument).
    static let secretEnvOption = Option(name: "secret-env", valueName: "VAR", help: "The variable holding the Auth Secret (default TRANSLOADIT_SECRET).")

    var allOptions: [Option] { options + [Self.helpOption] }

    var usage: String {
        var parts = ["pipeline", name]
        parts += arguments.map { argument in
            let name = argument.variadic ? argument.name + "..." : argument.name
            return argument.optional ? "[\(name)]" : name
        }
        if !options.isEmpty { parts.append("[options]") }
        return parts.joined(separator: " ")
    }
}
