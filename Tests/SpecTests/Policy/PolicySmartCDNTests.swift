import Foundation
import Basics
import Spec
import TestSupport
import XCTest

/// The policy's `smart_cdn:` rules: which workspaces, Templates, URL parameters and lifetimes a
/// Smart CDN URL may have; without the section, none may be signed.
final class PolicySmartCDNTests: XCTestCase {
    private func decode(_ yaml: String) -> Loaded<Policy> {
        PolicyLoader(environment: [:]).decode(Data(yaml.utf8), file: "policy.yml")
    }

    private let rules = Policy.SmartCDNRules(
        workspaces: ["my-app"], templates: ["thumbs", "covers"],
        parameters: ["w": OptionConstraint(type: .integer, minimum: 1, maximum: 2000), "fit": OptionConstraint(allowedValues: [.string("crop"), .string("fit")])],
        maxExpiresIn: .seconds(7 * 86400))

    private func policy(smartCDN: Policy.SmartCDNRules?, maxExpiresIn: Duration? = .seconds(3600)) -> Policy {
        var policy = Policy(file: "policy.yml", authKey: "key-1", maxExpiresIn: maxExpiresIn)
        policy.smartCDN = smartCDN
        return policy
    }

    private func request(
        workspace: String = "my-app", template: String = "thumbs", _ parameters: [(name: String, value: String)] = [("w", "400")],
        lifetime: Duration = .seconds(3600), key: String? = nil
    ) -> SmartCDNRequest {
        SmartCDNRequest(workspace: workspace, template: template, parameters: parameters, lifetime: lifetime, authKey: key)
    }

    func testTheSectionDecodes() throws {
        let loaded = decode("""
            version: 1
            max_expires_in: 1h
            robots: {}
            smart_cdn:
              workspaces: [my-app]
              templates: [thumbs, covers]
              params:
                w: {type: integer, min: 1, max: 2000}
                fit: {enum: [crop, fit]}
                format:
              max_expires_in: 7d
            """)
        XCTAssertEqual(loaded.diagnostics, [])
        let rules = try XCTUnwrap(loaded.value?.smartCDN)
        XCTAssertEqual(rules.workspaces, ["my-app"])
        XCTAssertEqual(rules.templates, ["thumbs", "covers"])
        XCTAssertEqual(rules.maxExpiresIn, .seconds(7 * 86400))
        XCTAssertEqual(rules.parameters.keys.sorted(), ["fit", "format", "w"])
        XCTAssertEqual(rules.parameters["w"]?.maximum, 2000)
        XCTAssertEqual(rules.parameters["fit"]?.allowedValues, [.string("crop"), .string("fit")])
        XCTAssertNil(rules.parameters["format"]?.type)
        XCTAssertNil(decode("version: 1\nrobots: {}\n").value?.smartCDN, "no section: none allowed")
    }

    func testWrongSectionsAreNamedAtTheirLine() {
        let loaded = decode("""
            version: 1
            robots: {}
            smart_cdn:
              workspace: [my-app]
              params:
                exp: {type: integer}
                tags: {type: array}
            """)
        XCTAssertNil(loaded.value)
        XCTAssertEqual(loaded.diagnostics.map(\.id), ["policy.unknown-key", "policy.smart-cdn-param", "policy.bad-type"])
        XCTAssertEqual(loaded.diagnostics.map { $0.location?.line }, [4, 6, 7])
        XCTAssertEqual(loaded.diagnostics.first?.hint, "did you mean 'workspaces'?")
    }

    func testWithoutTheSectionEveryURLIsRefused() {
        XCTAssertEqual(policy(smartCDN: nil).check(request()), [
            PolicyFinding(
                id: "policy.smart-cdn-not-allowed", message: "Smart CDN URLs are not allowed by this policy",
                hint: "ask the policy owners for a 'smart_cdn:' section that allows workspace 'my-app' and Template 'thumbs'",
                path: ["smart_cdn"], concernsKey: true),
        ])
    }

    func testAnAllowedURLHasNoFindings() {
        let allowed = request([("w", "400"), ("fit", "crop"), ("w", "2000")], lifetime: .seconds(7 * 86400), key: "key-1")
        XCTAssertEqual(policy(smartCDN: rules).check(allowed), [])
    }

    func testUnlistedWorkspaceTemplateAndParameter() {
        let findings = policy(smartCDN: rules).check(request(workspace: "other", template: "thumb", [("h", "1"), ("h", "2")]))
        XCTAssertEqual(findings, [
            PolicyFinding(id: "policy.smart-cdn-workspace", message: "Smart CDN workspace 'other' is not allowed",
                          hint: "the policy's smart_cdn.workspaces allows: my-app", path: ["smart_cdn", "workspace"]),
            PolicyFinding(id: "policy.smart-cdn-template", message: "Smart CDN Template 'thumb' is not allowed",
                          hint: "did you mean 'thumbs'? (the policy's smart_cdn.templates)", path: ["smart_cdn", "template"]),
            PolicyFinding(id: "policy.smart-cdn-param", message: "Smart CDN URL parameter 'h' is not allowed",
                          hint: "did you mean 'w'? (the policy's smart_cdn.params)", path: ["smart_cdn", "params", "h"], concernsKey: true),
        ])
        let empty = policy(smartCDN: Policy.SmartCDNRules()).check(request())
        XCTAssertEqual(empty.map(\.hint), [
            "the policy's smart_cdn.workspaces allows none", "the policy's smart_cdn.templates allows none", "the policy's smart_cdn.params allows none",
        ])
    }

    func testParameterValuesFollowTheirConstraints() {
        let findings = policy(smartCDN: rules).check(request([("w", "5000"), ("w", "wide"), ("fit", "pad")]))
        XCTAssertEqual(findings.map(\.message), [
            "Smart CDN URL parameter 'w' must be at most 2000, found 5000",
            "Smart CDN URL parameter 'w' must be an integer, found string",
            "Smart CDN URL parameter 'fit' must be one of \"crop\", \"fit\", found \"pad\"",
        ])
        XCTAssertEqual(Set(findings.map(\.id)), ["policy.smart-cdn-param-value"])
    }

    func testTheLifetimeIsTheSectionsElseThePolicys() {
        let tooLong = request(lifetime: .seconds(87600 * 3600))
        XCTAssertEqual(policy(smartCDN: rules).check(tooLong), [
            PolicyFinding(id: "policy.smart-cdn-lifetime", message: "Smart CDN URL lifetime 3650d is longer than the allowed 7d",
                          hint: "the policy's smart_cdn.max_expires_in is 7d: ask for 7d or less", path: ["smart_cdn", "expires_in"]),
        ])
        var inherited = rules
        inherited.maxExpiresIn = nil
        XCTAssertEqual(policy(smartCDN: inherited).check(request(lifetime: .seconds(7200))), [
            PolicyFinding(id: "policy.smart-cdn-lifetime", message: "Smart CDN URL lifetime 2h is longer than the allowed 1h",
                          hint: "the policy's max_expires_in (smart_cdn has none of its own) is 1h: ask for 1h or less", path: ["smart_cdn", "expires_in"]),
        ])
        XCTAssertEqual(policy(smartCDN: inherited).check(request(lifetime: .seconds(3600))), [])
        XCTAssertEqual(policy(smartCDN: inherited, maxExpiresIn: nil).check(tooLong), [], "no limit anywhere: none applies")
    }

    func testTheAuthKeyIsThePolicysWhenGiven() {
        XCTAssertEqual(policy(smartCDN: rules).check(request(key: "key-2")).map(\.id), ["policy.auth-key"])
        XCTAssertEqual(policy(smartCDN: rules).check(request(key: nil)), [])
    }

    func testURLParameterTextReadAsTheConstraintsType() {
        let cases: [(OptionConstraint, String, Bool)] = [
            (OptionConstraint(type: .integer), "400", true),
            (OptionConstraint(type: .integer), "4.5", false),
            (OptionConstraint(type: .number), "4.5", true),
            (OptionConstraint(type: .boolean), "true", true),
            (OptionConstraint(type: .boolean), "yes", false),
            (OptionConstraint(type: .string), "400", true),
            (OptionConstraint(allowedValues: [.int(1), .int(2)]), "2", true),
            (OptionConstraint(allowedValues: [.int(1), .int(2)]), "3", false),
            (OptionConstraint(minimum: 10), "9", false),
            (OptionConstraint(pattern: "[a-z]+"), "webp", true),
            (OptionConstraint(pattern: "[a-z]+"), "400", false),
            (OptionConstraint(), "anything", true),
        ]
        for (constraint, text, allowed) in cases {
            XCTAssertEqual(constraint.violation(ofParameter: text) == nil, allowed, "\(constraint) \(text)")
        }
    }
}
