import Basics
import Foundation
import YAML

/// Reads one entry of a callers file's `providers`:
/// `{name, issuer, audience (one or a list), jwks_uri or jwks_file (else discovery)}`.
struct ProviderReader {
    let decoder: NodeDecoder

    func provider(_ node: Node, folder: String) -> IdentityProvider? {
        guard let fields = decoder.fields(node, what: "an entry of 'providers'", allowed: ["name", "issuer", "audience", "jwks_uri", "jwks_file"],
                                          required: ["name", "issuer", "audience"]),
              let name = fields["name"].flatMap({ decoder.nonEmptyString($0, what: "'name'") }),
              let issuerNode = fields["issuer"], let issuer = decoder.nonEmptyString(issuerNode, what: "'issuer'"),
              let audienceNode = fields["audience"], let audiences = decoder.stringList(audienceNode, what: "'audience'") else { return nil }
        if let problem = IdentityProvider.problem(issuer: issuer.value) {
            decoder.report(.error("callers.insecure-provider", "the issuer of provider '\(name.value)' \(problem)", at: issuerNode.location,
                                  hint: "copy the exact 'iss' of the provider's tokens"))
            return nil
        }
        guard !audiences.isEmpty, !audiences.contains(where: { $0.value.isEmpty }) else {
            decoder.report(.error("callers.empty-value", "'audience' of provider '\(name.value)' must name at least one audience", at: audienceNode.location,
                                  hint: "the audience your tokens are requested for, such as pipeline-signer"))
            return nil
        }
        var keys = IdentityProvider.KeySource.url(nil)
        switch (fields["jwks_uri"], fields["jwks_file"]) {
        case (let uriNode?, nil):
            guard let uri = decoder.nonEmptyString(uriNode, what: "'jwks_uri'") else { return nil }
            guard uri.value.lowercased().hasPrefix("https://") else {
                decoder.report(.error("callers.insecure-provider", "'jwks_uri' of provider '\(name.value)' must be an https URL", at: uriNode.location))
                return nil
            }
            keys = .url(uri.value)
        case (nil, let fileNode?):
            guard let file = decoder.nonEmptyString(fileNode, what: "'jwks_file'") else { return nil }
            let path = file.value.hasPrefix("/") || folder.isEmpty ? file.value : folder + "/" + file.value
            do throws(JWKSError) {
                _ = try JSONWebKeys(file: path)
            } catch {
                decoder.report(.error("callers.bad-jwks", "'jwks_file' of provider '\(name.value)': \(error.reason)", at: fileNode.location,
                                      hint: "download the provider's JWKS (its jwks_uri) into that file"))
                return nil
            }
            keys = .file(path)
        case (let uriNode?, _?):
            decoder.report(.error("callers.bad-provider", "provider '\(name.value)' gives both 'jwks_uri' and 'jwks_file'", at: uriNode.location,
                                  hint: "keep one: the URL for keys that rotate, the file for offline use"))
            return nil
        case (nil, nil):
            break
        }
        return IdentityProvider(name: name.value, issuer: issuer.value, audiences: audiences.map(\.value), keys: keys)
    }
}
