import Basics
import Foundation
import Spec
import Wire

extension RunResults {
    /// The results with each source of a job that has `smart_cdn` given its signed URL, working
    /// for the job's `expires_in` from `now`.
    func signingSmartCDN(_ jobs: [String: SmartCDNSpec], authKey: String, secret: String, now: Date) -> RunResults {
        var signed = self
        for index in signed.assemblies.indices {
            guard let spec = jobs[signed.assemblies[index].job] else { continue }
            let expires = Int64((now.timeIntervalSince1970 + Double(spec.expiresIn.components.seconds)) * 1000)
            for file in signed.assemblies[index].files {
                let url = SmartCDNURL(
                    workspace: spec.workspace, template: spec.template, input: spec.input(for: file.path),
                    parameters: spec.parameters.map { ($0.name, $0.value) }, authKey: authKey, expires: expires)
                signed.assemblies[index].smartCDNURLs[ExactName(file.path)] = url.signed(secret: secret)
            }
        }
        return signed
    }
}
