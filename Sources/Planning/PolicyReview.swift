import Spec
import Basics

/// Checks a job's planned Assemblies against a policy and locates each finding in the manifest.
struct PolicyReview {
    let policy: Policy
    let manifest: Manifest
    let job: Job?

    /// Instruction findings for every job of the manifest, without files (for `validate`).
    func findings(for manifest: Manifest) -> [Diagnostic] {
        SharedValueFindings.coalesced(manifest.jobs.flatMap { PolicyReview(policy: policy, manifest: manifest, job: $0).findings(for: []) }) + manifestFindings()
    }

    /// What the policy says about the manifest as a whole: a signer whose policy allows Templates
    /// but not listing them refuses the listing `run` needs to find the manifest's Templates by name.
    func manifestFindings() -> [Diagnostic] {
        guard let first = manifest.templates.first, manifest.auth.signer != nil, let rules = policy.templates, !rules.allowListing else { return [] }
        var warning = Diagnostic.warning(
            "policy.template-listing", "'pipeline run' lists the account's Templates through the signer to find them by name, and this policy does not allow that",
            at: first.name.location, hint: "ask the policy owners to add 'allow_listing: true' under 'templates:'")
        warning.notes.append(.init("policy: \(policy.file)"))
        return [warning]
    }

    func findings(for assemblies: [PlannedAssembly]) -> [Diagnostic] {
        guard let job else { return [] }
        let lifetime = manifest.auth.expiresIn?.value ?? AuthSettings.defaultExpiresIn
        var params = job.instructions.objectValue ?? [:]
        if let key = manifest.auth.key?.value { params["auth"] = .object(["key": .string(key)]) }
        // A manifest Template is sent by the id it will have; until then it is judged by name and content.
        let template = params.removeValue(forKey: "template").map {
            NamedTemplate(name: $0["name"]?.stringValue ?? "", content: $0["content"] ?? .object([:]))
        }
        var diagnostics = policy.check(AssemblyRequest(params: .object(params), lifetime: lifetime, template: template)).map(locate)
        // The job's Smart CDN URLs: signed by the run itself, so judged here or nowhere (the Auth
        // Key is the Assemblies' own, judged above).
        if let smartCDN = job.smartCDN { diagnostics += policy.check(SmartCDNRequest(smartCDN)).map(locate) }
        var seen: Set<String> = []
        for assembly in assemblies {
            let request = AssemblyRequest(params: .object([:]), fileSizes: assembly.files.map(\.size))
            for finding in policy.check(request) where seen.insert(finding.message).inserted {
                diagnostics.append(locate(finding))
            }
        }
        return diagnostics
    }

    private func locate(_ finding: PolicyFinding) -> Diagnostic {
        guard let job else { return finding.diagnostic(locations: nil) }
        var diagnostic = finding.diagnostic(locations: job.locations)
        switch finding.path.first {
        case "auth":
            diagnostic.location = finding.path.last == "key" ? manifest.auth.key?.location : manifest.auth.expiresIn?.location
        case nil:
            diagnostic.location = job.name.location
        default:
            break
        }
        if diagnostic.location == nil { diagnostic.location = job.name.location }
        diagnostic.notes.append(.init("policy: \(policy.file)"))
        return diagnostic
    }
}
