import Basics
import Spec
import TestSupport
import XCTest

final class PolicyCheckTests: XCTestCase {
    /// A policy shaped like the one in DESIGN.md, with small limits.
    private func policy(
        templates: Policy.TemplateRules? = nil, fields: Set<String>? = ["kind", "site"],
        notifyURLs: Set<String>? = ["https://hooks.example.com/transloadit"],
        robots: [String: Policy.RobotRules]? = nil, limits: Policy.Limits = Policy.Limits()
    ) -> Policy {
        let resize = Policy.RobotRules(options: [
            "width": OptionConstraint(type: .integer, minimum: 1, maximum: 4000),
            "height": OptionConstraint(type: .integer, minimum: 1, maximum: 4000),
            "resize_strategy": OptionConstraint(allowedValues: [.string("fit"), .string("crop")]),
        ])
        return Policy(
            file: "policy.yml", authKey: "key-1", maxExpiresIn: .seconds(3600), limits: limits, templates: templates,
            allowedFields: fields, allowedNotifyURLs: notifyURLs,
            robots: robots ?? ["/image/resize": resize, "/file/filter": Policy.RobotRules()])
    }

    private func check(_ policy: Policy, _ params: String, sizes: [Int64]? = nil, lifetime: Duration? = nil) -> [PolicyFinding] {
        policy.check(AssemblyRequest(params: parseJSON(params), fileSizes: sizes, lifetime: lifetime))
    }

    func testFullyAllowedRequestHasNoFindings() {
        let params = """
        {"auth": {"key": "key-1"},
         "steps": {"thumb": {"robot": "/image/resize", "use": ":original", "width": 200, "height": 100, "resize_strategy": "fit"},
                   "keep": {"robot": "/file/filter", "use": "thumb"}},
         "fields": {"kind": "thumb"},
         "notify_url": "https://hooks.example.com/transloadit"}
        """
        let limits = Policy.Limits(filesPerAssembly: 3, fileSize: ByteSize(bytes: 1000), assemblySize: ByteSize(bytes: 2000))
        XCTAssertEqual(check(policy(limits: limits), params, sizes: [1000, 500, 500], lifetime: .seconds(3600)), [])
    }

    func testUnknownParams() {
        let findings = check(policy(), #"{"redirect_url": "https://x.example", "allow_steps_override": true}"#)
        let hint = "allowed: auth, steps, template_id, fields, notify_url"
        XCTAssertEqual(findings, [
            PolicyFinding(id: "policy.unknown-param", message: "'allow_steps_override' is not allowed in params", hint: hint,
                          path: ["allow_steps_override"], concernsKey: true),
            PolicyFinding(id: "policy.unknown-param", message: "'redirect_url' is not allowed in params", hint: hint,
                          path: ["redirect_url"], concernsKey: true),
        ])
    }

    func testAuthKeyMustBeThePolicysKey() {
        XCTAssertEqual(check(policy(), #"{"auth": {"key": "key-2"}}"#), [
            PolicyFinding(id: "policy.auth-key", message: "the Auth Key is not the one this policy allows",
                          hint: "use the Auth Key named in policy.yml", path: ["auth", "key"]),
        ])
        XCTAssertEqual(check(policy(), #"{"auth": {"key": "key-1"}}"#), [])
        var open = policy()
        open.authKey = nil
        XCTAssertEqual(check(open, #"{"auth": {"key": "anything"}}"#), [])
    }

    func testLifetime() {
        XCTAssertEqual(check(policy(), "{}", lifetime: .seconds(7200)), [
            PolicyFinding(id: "policy.lifetime", message: "signature lifetime 2h is longer than the allowed 1h",
                          hint: "set 'auth.expires_in' to 1h or less", path: ["auth", "expires_in"]),
        ])
        XCTAssertEqual(check(policy(), "{}", lifetime: .seconds(3600)), [])
        XCTAssertEqual(check(policy(), "{}"), [])
    }

    func testTemplateWithoutTemplatesSection() {
        XCTAssertEqual(check(policy(), #"{"template_id": "0123abcd"}"#), [
            PolicyFinding(id: "policy.template-not-allowed", message: "templates are not allowed by this policy",
                          hint: "use 'steps', or ask the policy owners to allow template '0123abcd'", path: ["template_id"]),
        ])
    }

    func testTemplateNotListed() {
        let rules = Policy.TemplateRules(allowed: ["t2", "t1"])
        XCTAssertEqual(check(policy(templates: rules), #"{"template_id": "t3"}"#), [
            PolicyFinding(id: "policy.template-not-allowed", message: "template 't3' is not allowed",
                          hint: "allowed templates: t1, t2", path: ["template_id"]),
        ])
        XCTAssertEqual(check(policy(templates: rules), #"{"template_id": "t1"}"#), [])
        // A numeric id is compared by its text.
        XCTAssertEqual(check(policy(templates: Policy.TemplateRules(allowed: ["123"])), #"{"template_id": 123}"#), [])
        let none = check(policy(templates: Policy.TemplateRules(allowed: [])), #"{"template_id": "t1"}"#)
        XCTAssertEqual(none.map(\.id), ["policy.template-not-allowed"])
        XCTAssertNil(none.first?.hint)
    }

    func testStepsOverridingATemplate() {
        let params = #"{"template_id": "t1", "steps": {"thumb": {"robot": "/image/resize", "width": 100}}}"#
        XCTAssertEqual(check(policy(templates: Policy.TemplateRules(allowed: ["t1"])), params), [
            PolicyFinding(id: "policy.steps-override", message: "steps may not override a template's steps under this policy",
                          hint: "remove 'steps' and let the template define them", path: ["steps"], concernsKey: true),
        ])
        XCTAssertEqual(check(policy(templates: Policy.TemplateRules(allowed: ["t1"], allowStepsOverride: true)), params), [])
    }

    func testATemplateWriteIsCheckedWhateverFormItsContentTakes() {
        let rules = policy(templates: Policy.TemplateRules(allowed: ["site-thumbs"]))
        let wide = #"{\"steps\":{\"t\":{\"robot\":\"/image/resize\",\"width\":9000}}}"#
        // The API takes the content as JSON text too: it is parsed and checked like an object.
        XCTAssertEqual(check(rules, #"{"name": "site-thumbs", "template": "\#(wide)"}"#).map(\.id), ["policy.option-value"])
        XCTAssertEqual(check(rules, #"{"name": "site-thumbs", "template": "{not json"}"#).map(\.id), ["policy.bad-params"])
        XCTAssertEqual(check(rules, #"{"name": "site-thumbs", "template": 7}"#).map(\.id), ["policy.bad-params"])
        // A Template's notify_url reaches every Assembly that uses it: the notify rules apply.
        XCTAssertEqual(check(rules, #"{"name": "site-thumbs", "template": {"steps": {}, "notify_url": "http://127.0.0.1:9/x"}}"#).map(\.id),
                       ["policy.notify-url-not-allowed"])
        XCTAssertEqual(check(rules, #"{"name": "site-thumbs", "template": {"steps": {}, "notify_url": "https://hooks.example.com/transloadit"}}"#), [])
        XCTAssertEqual(check(rules, #"{"name": "site-thumbs", "template": {"steps": {}, "fields": {}}}"#).map(\.id), ["policy.unknown-param"])
        // The same for a Template looked up by the signer: judged by its name and content.
        let lookedUp = NamedTemplate(name: "site-thumbs", content: .object(["notify_url": .string("http://evil.example")]))
        XCTAssertEqual(rules.check(AssemblyRequest(params: .object(["template_id": .string("abc123")]), template: lookedUp)).map(\.id),
                       ["policy.notify-url-not-allowed"])
    }

    func testParamsCannotVouchForTheirOwnTemplate() throws {
        let rules = policy(templates: Policy.TemplateRules(allowed: ["site-thumbs"]))
        // A `template` key is not part of the Assembly API: it cannot stand in for the template_id that is sent.
        let forged = #"{"template_id": "evil", "template": {"name": "site-thumbs", "content": {}}}"#
        XCTAssertEqual(Set(check(rules, forged).map(\.id)), ["policy.unknown-param", "policy.template-not-allowed"])
        XCTAssertEqual(check(rules, #"{"template_id": "evil"}"#).map(\.id), ["policy.template-not-allowed"])
        // A Template found by its id is judged by that id's name, never by anything the params say.
        let params = try JSONValue.parse(Data(forged.utf8))
        let judged = rules.templateToJudge(for: params) { id in id == "evil" ? NamedTemplate(name: "evil-name", content: .object([:])) : nil }
        XCTAssertEqual(judged?.name, "evil-name")
        XCTAssertTrue(rules.check(AssemblyRequest(params: params, template: judged)).map(\.id).contains("policy.template-not-allowed"))
    }

    func testTemplateListingNeedsItsOwnPermission() {
        let listing = #"{"page": 1, "pagesize": 50}"#
        XCTAssertEqual(check(policy(templates: Policy.TemplateRules(allowed: ["t1"])), listing).map(\.id), ["policy.template-listing"])
        XCTAssertEqual(check(policy(), listing).map(\.id), ["policy.template-listing"], "no templates section: no listing")
        let allowed = policy(templates: Policy.TemplateRules(allowed: ["t1"], allowListing: true))
        XCTAssertEqual(check(allowed, listing), [])
        // A listing carries nothing else: steps or a Template id in it are refused, not ignored.
        XCTAssertEqual(check(allowed, #"{"page": 1, "steps": {}}"#).map(\.id), ["policy.unknown-param"])
        XCTAssertEqual(check(allowed, #"{"pagesize": 50, "template_id": "t9"}"#).map(\.id), ["policy.unknown-param"])
    }

    func testRobotNotAllowed() {
        XCTAssertEqual(check(policy(), #"{"steps": {"video": {"robot": "/video/encode", "use": ":original"}}}"#), [
            PolicyFinding(id: "policy.robot-not-allowed", message: "robot /video/encode is not allowed (step 'video')",
                          hint: "allowed robots: /file/filter, /image/resize", path: ["steps", "video", "robot"]),
        ])
        let findings = check(policy(robots: [:]), #"{"steps": {"video": {"robot": "/video/encode"}}}"#)
        XCTAssertEqual(findings.map(\.hint), ["this policy allows no robots"])
    }

    /// The hint says what the policy allows as the policy's, and apart from it what the robot
    /// itself takes: never the policy's list as the robot's valid options.
    func testOptionNotAllowed() {
        let allowed = "the policy allows these options of /image/resize: height, resize_strategy, width"
        let findings = check(policy(), #"{"steps": {"thumb": {"robot": "/image/resize", "widht": 200, "colour": "red", "strip": true}}}"#)
        XCTAssertEqual(findings, [
            PolicyFinding(id: "policy.option-not-allowed", message: "option 'colour' of /image/resize is not allowed (step 'thumb')",
                          hint: "/image/resize has no option 'colour' ('pipeline robots /image/resize' lists what it takes); " + allowed,
                          path: ["steps", "thumb", "colour"], concernsKey: true),
            PolicyFinding(id: "policy.option-not-allowed", message: "option 'strip' of /image/resize is not allowed (step 'thumb')",
                          hint: allowed + "; /image/resize itself takes 'strip': ask the policy's owners to allow it",
                          path: ["steps", "thumb", "strip"], concernsKey: true),
            PolicyFinding(id: "policy.option-not-allowed", message: "option 'widht' of /image/resize is not allowed (step 'thumb')",
                          hint: "did you mean 'width'? /image/resize has no option 'widht' ('pipeline robots /image/resize' lists what it takes); " + allowed,
                          path: ["steps", "thumb", "widht"], concernsKey: true),
        ])
        // A robot the catalog does not know: only what the policy allows.
        let unknown = policy(robots: ["/image/sharpen": Policy.RobotRules(options: ["amount": OptionConstraint()])])
        XCTAssertEqual(check(unknown, #"{"steps": {"s": {"robot": "/image/sharpen", "radius": 2}}}"#).map(\.hint),
                       ["the policy allows these options of /image/sharpen: amount"])
    }

    func testRobotWithoutOptions() {
        let findings = check(policy(), #"{"steps": {"keep": {"robot": "/file/filter", "use": "thumb", "accepts": []}}}"#)
        XCTAssertEqual(findings, [
            PolicyFinding(id: "policy.option-not-allowed", message: "option 'accepts' of /file/filter is not allowed (step 'keep')",
                          hint: "the policy allows /file/filter with no options; /file/filter itself takes 'accepts': ask the policy's owners to allow it",
                          path: ["steps", "keep", "accepts"], concernsKey: true),
        ])
    }

    func testRobotAndUseAreAlwaysAllowed() {
        let params = #"{"steps": {"keep": {"robot": "/file/filter", "use": ["a", {"name": "b"}]}}}"#
        XCTAssertEqual(check(policy(), params), [])
    }

    /// `result` and `ignore_errors` are structure, as `use` is: allowed under every allowed robot
    /// (plan's hint for a bad file says to add ignore_errors), and held to a constraint a policy gives.
    func testResultAndIgnoreErrorsAreStructureAndKeepAGivenConstraint() {
        let params = #"{"steps": {"keep": {"robot": "/file/filter", "use": "a", "result": true, "ignore_errors": ["meta", "execute"]}}}"#
        XCTAssertEqual(check(policy(), params), [])
        let strict = policy(robots: ["/file/filter": Policy.RobotRules(options: ["result": OptionConstraint(type: .boolean)])])
        XCTAssertEqual(check(strict, #"{"steps": {"keep": {"robot": "/file/filter", "result": "yes"}}}"#).map(\.id), ["policy.option-value"])
    }

    func testOptionValue() {
        let params = #"{"steps": {"thumb": {"robot": "/image/resize", "width": 5000, "height": 0, "resize_strategy": "pad"}}}"#
        XCTAssertEqual(check(policy(), params), [
            PolicyFinding(id: "policy.option-value",
                          message: "option 'height' of /image/resize must be at least 1, found 0 (step 'thumb')",
                          path: ["steps", "thumb", "height"]),
            PolicyFinding(id: "policy.option-value",
                          message: #"option 'resize_strategy' of /image/resize must be one of "fit", "crop", found "pad" (step 'thumb')"#,
                          path: ["steps", "thumb", "resize_strategy"]),
            PolicyFinding(id: "policy.option-value",
                          message: "option 'width' of /image/resize must be at most 4000, found 5000 (step 'thumb')",
                          path: ["steps", "thumb", "width"]),
        ])
    }

    func testBadParams() {
        XCTAssertEqual(policy().check(AssemblyRequest(params: .array([]))).map(\.id), ["policy.bad-params"])
        XCTAssertEqual(check(policy(), #"{"steps": []}"#).map(\.path), [["steps"]])
        XCTAssertEqual(check(policy(), #"{"steps": {"x": {"use": ":original"}}}"#), [
            PolicyFinding(id: "policy.bad-params", message: "step 'x' has no robot", path: ["steps", "x"]),
        ])
        XCTAssertEqual(check(policy(), #"{"fields": "kind"}"#).map(\.id), ["policy.bad-params"])
    }

    func testFieldNotAllowed() {
        XCTAssertEqual(check(policy(), #"{"fields": {"kind": "thumb", "colour": "red", "kinds": 2}}"#), [
            PolicyFinding(id: "policy.field-not-allowed", message: "field 'colour' is not allowed",
                          hint: "valid fields: kind, site", path: ["fields", "colour"], concernsKey: true),
            PolicyFinding(id: "policy.field-not-allowed", message: "field 'kinds' is not allowed",
                          hint: "did you mean 'kind'?", path: ["fields", "kinds"], concernsKey: true),
        ])
        XCTAssertEqual(check(policy(fields: nil), #"{"fields": {"kind": "thumb"}}"#), [
            PolicyFinding(id: "policy.field-not-allowed", message: "field 'kind' is not allowed",
                          hint: "this policy allows no fields", path: ["fields", "kind"], concernsKey: true),
        ])
    }

    func testNotifyURLNotAllowed() {
        XCTAssertEqual(check(policy(), #"{"notify_url": "https://evil.example.com/hook"}"#), [
            PolicyFinding(id: "policy.notify-url-not-allowed", message: "notify_url 'https://evil.example.com/hook' is not allowed",
                          hint: "allowed: https://hooks.example.com/transloadit", path: ["notify_url"]),
        ])
        XCTAssertEqual(check(policy(notifyURLs: nil), #"{"notify_url": "https://hooks.example.com/transloadit"}"#).map(\.hint),
                       ["this policy allows no notify_url"])
    }

    func testTooManyFiles() {
        let limited = policy(limits: Policy.Limits(filesPerAssembly: 2))
        XCTAssertEqual(check(limited, "{}", sizes: [1, 1, 1]), [
            PolicyFinding(id: "policy.too-many-files", message: "an Assembly of 3 files exceeds the limit of 2",
                          hint: "lower 'batch' to 2 or less", path: []),
        ])
        XCTAssertEqual(check(limited, "{}", sizes: [1, 1]), [])
    }

    func testFileTooLarge() {
        let limited = policy(limits: Policy.Limits(fileSize: ByteSize(bytes: 1000)))
        XCTAssertEqual(check(limited, "{}", sizes: [500, 1500, 2500, 1000]), [
            PolicyFinding(id: "policy.file-too-large", message: "2 files larger than the limit of 1 KB (largest: 2.5 KB)",
                          hint: "exclude large files from 'inputs' with a '!' pattern", path: []),
        ])
        XCTAssertEqual(check(limited, "{}", sizes: [1001]).map(\.message), ["1 file larger than the limit of 1 KB (largest: 1 KB)"])
        XCTAssertEqual(check(limited, "{}", sizes: [1000]), [])
    }

    func testAssemblyTooLarge() {
        let limited = policy(limits: Policy.Limits(assemblySize: ByteSize(bytes: 2000)))
        XCTAssertEqual(check(limited, "{}", sizes: [1500, 1500]), [
            PolicyFinding(id: "policy.assembly-too-large", message: "an Assembly of 3 KB exceeds the limit of 2 KB",
                          hint: "lower 'batch' so fewer files go into one Assembly", path: []),
        ])
        XCTAssertEqual(check(limited, "{}", sizes: [1000, 1000]), [])
    }

    func testFindingsComeInAFixedOrder() {
        let limited = policy(limits: Policy.Limits(filesPerAssembly: 1))
        let params = #"{"zeta": 1, "notify_url": "https://x.example", "fields": {"other": 1}, "steps": {"v": {"robot": "/video/encode"}}}"#
        XCTAssertEqual(check(limited, params, sizes: [1, 1], lifetime: .seconds(7200)).map(\.id), [
            "policy.unknown-param", "policy.lifetime", "policy.robot-not-allowed", "policy.field-not-allowed",
            "policy.notify-url-not-allowed", "policy.too-many-files",
        ])
    }
}
