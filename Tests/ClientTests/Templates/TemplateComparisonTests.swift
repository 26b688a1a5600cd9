import APIClients
import Basics
@testable import Client
import Planning
import XCTest

/// What `plan` and `templates list` say about each Template, live and from the workspace's record.
final class TemplateComparisonTests: XCTestCase {
    private func steps(width: JSONValue) -> JSONValue {
        .object(["steps": .object(["thumb": .object(["robot": .string("/image/resize"), "width": width])])])
    }

    func testLiveComparisonIsFieldByField() {
        let declared: [String: DeclaredTemplate] = [
            "same-one": (steps(width: .int(200)), false),
            "changed-one": (steps(width: .int(320)), true),
            "new-one": (steps(width: .int(1)), false),
        ]
        let remote = [
            // The service may send numbers as floats, and its own `auth`.
            RemoteTemplate(id: "id-1", name: "same-one", content: .object([
                "steps": .object(["thumb": .object(["robot": .string("/image/resize"), "width": .double(200)])]),
                "auth": .object(["key": .string("account-key")]),
            ]), requireSignatureAuth: false),
            RemoteTemplate(id: "id-2", name: "changed-one", content: steps(width: .int(200)), requireSignatureAuth: false),
            RemoteTemplate(id: "id-3", name: "someone-elses", content: .object([:]), requireSignatureAuth: false),
        ]
        XCTAssertEqual(TemplateComparison.compare(declared, remote: remote), [
            TemplateComparison(name: "changed-one", state: .update, id: "id-2", changes: [
                ValueChange(path: ["require_signature_auth"], old: .bool(false), new: .bool(true)),
                ValueChange(path: ["steps", "thumb", "width"], old: .int(200), new: .int(320)),
            ]),
            TemplateComparison(name: "new-one", state: .create),
            TemplateComparison(name: "same-one", state: .unchanged, id: "id-1"),
            TemplateComparison(name: "someone-elses", state: .undeclared, id: "id-3"),
        ])
    }

    func testFieldsAManifestCannotDeclareShowAsRemoved() {
        let declared: [String: DeclaredTemplate] = ["hooked-one": (steps(width: .int(1)), false)]
        var content = steps(width: .int(1)).objectValue ?? [:]
        content["notify_url"] = .string("https://example.com/hook")
        let remote = [RemoteTemplate(id: "h", name: "hooked-one", content: .object(content), requireSignatureAuth: false)]
        XCTAssertEqual(TemplateComparison.compare(declared, remote: remote).first?.changes,
                       [ValueChange(path: ["notify_url"], old: .string("https://example.com/hook"), new: nil)], "a sync removes it")
    }

    func testAllowStepsOverrideDefaultsToTrueOnBothSides() {
        let declared: [String: DeclaredTemplate] = ["a-template": (.object(["steps": .object([:]), "allow_steps_override": .bool(true)]), false)]
        let remote = [RemoteTemplate(id: "x", name: "a-template", content: .object(["steps": .object([:])]), requireSignatureAuth: false)]
        XCTAssertEqual(TemplateComparison.compare(declared, remote: remote).map(\.state), [.unchanged])
    }

    func testOfflineComparisonUsesTheRecordedDigest() {
        let content = steps(width: .int(200))
        let declared: [String: DeclaredTemplate] = ["kept-one": (content, false), "edited-one": (steps(width: .int(9)), false)]
        let synced = [
            "kept-one": SyncedTemplate(id: "k", contentSHA256: SyncedTemplate.digest(content: content, requireSignatureAuth: false)),
            "edited-one": SyncedTemplate(id: "e", contentSHA256: SyncedTemplate.digest(content: content, requireSignatureAuth: false)),
            "dropped-one": SyncedTemplate(id: "d", contentSHA256: "0"),
        ]
        XCTAssertEqual(TemplateComparison.compare(declared, synced: synced), [
            TemplateComparison(name: "edited-one", state: .update, id: "e"),
            TemplateComparison(name: "kept-one", state: .unchanged, id: "k"),
            TemplateComparison(name: "dropped-one", state: .undeclared, id: "d"),
        ])
    }
}
