import Basics
import Foundation
import Spec
import Wire

/// `pipeline sign-url`: a signed Smart CDN URL, as the official SDKs make it.
struct SignURLCommand: Command {
    static let spec = CommandSpec(
        name: "sign-url",
        summary: "Print a signed Smart CDN URL for a workspace, Template and input.",
        discussion: """
        Makes https://WORKSPACE.tlcdn.com/TEMPLATE/INPUT?... with the parameters, auth_key and exp (when the URL \
        stops working, in Unix milliseconds), signed with the Auth Secret (HMAC-SHA256, sig=sha256:...) exactly as the \
        official SDKs sign them. The secret is read from the environment, never from the command line, and never printed. \
        With --policy, a URL the policy's 'smart_cdn:' rules do not allow (workspace, Template, parameters, lifetime) is \
        refused and nothing is printed.
        """,
        arguments: [
            .init(name: "WORKSPACE", help: "The workspace (the CDN host's first label)."),
            .init(name: "TEMPLATE", help: "The Smart CDN Template's name."),
            .init(name: "INPUT", help: "The input's path in the workspace's storage (may be empty: '')."),
        ],
        options: [
            .init(name: "param", valueName: "NAME=VALUE", help: "A URL parameter (a name given twice is sent twice).", repeatable: true),
            .init(name: "expires", valueName: "DURATION", help: "How long the URL works (default 1h)."),
            .init(name: "key", valueName: "KEY", help: "The Auth Key (default $TRANSLOADIT_KEY)."),
            .init(name: "policy", valueName: "FILE", help: "Refuse a URL that this policy's 'smart_cdn:' rules do not allow."),
            CommandSpec.secretEnvOption,
        ],
        examples: [
            "TRANSLOADIT_KEY=k TRANSLOADIT_SECRET=s pipeline sign-url my-app thumbs photos/beach.jpg --param width=400",
            "pipeline sign-url my-app thumbs photos/beach.jpg --expires 7d --param w=200 --param h=200",
            "pipeline sign-url my-app thumbs photos/beach.jpg --param w=200 --policy policy.yml",
        ])

    let arguments: SignURLArguments

    init(_ arguments: SignURLArguments) {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> Int32 {
        let view = SignURLView()
        guard let key = arguments.key ?? context.environment["TRANSLOADIT_KEY"], !key.isEmpty else {
            view.noAuthKey(context: context)
            return ExitCode.failure
        }
        if let policyPath = arguments.policyPath, !allowed(key: key, policyPath: policyPath, context) { return ExitCode.failure }
        guard let secret = context.secret(in: arguments.secretVariable) else { return ExitCode.failure }
        let expires = Int64((Date().timeIntervalSince1970 + Double(arguments.lifetime.components.seconds)) * 1000)
        let signed = SmartCDNURL(
            workspace: arguments.url.workspace, template: arguments.url.template, input: arguments.url.input, parameters: arguments.parameters, authKey: key, expires: expires)
        view.signed(signed.signed(secret: secret), context: context)
        return ExitCode.success
    }

    /// Whether the policy at `policyPath` allows this URL; what it refuses, and a policy that
    /// cannot be read, is said.
    private func allowed(key: String, policyPath: String, _ context: CommandContext) -> Bool {
        let loaded = PolicyLoader(environment: context.environment).load(path: policyPath)
        context.report(loaded.diagnostics, sources: loaded.sources)
        guard let policy = loaded.value else { return false }
        let request = SmartCDNRequest(workspace: arguments.url.workspace, template: arguments.url.template, parameters: arguments.parameters, lifetime: arguments.lifetime, authKey: key)
        let findings = policy.check(request)
        guard !findings.isEmpty else { return true }
        context.report(findings.map { finding in
            var diagnostic = finding.diagnostic(locations: nil)
            diagnostic.notes.append(.init("policy: \(policyPath); nothing was signed"))
            return diagnostic
        }, sources: loaded.sources)
        return false
    }
}
