import Wire
import XCTest

/// Signed Smart CDN URLs against the official SDKs' published test vectors.
final class SmartCDNURLTests: XCTestCase {
    private func url(_ input: String, _ parameters: [(String, String)] = [], key: String, workspace: String, template: String, expires: Int64) -> SmartCDNURL {
        SmartCDNURL(workspace: workspace, template: template, input: input, parameters: parameters.map { (name: $0.0, value: $0.1) }, authKey: key, expires: expires)
    }

    /// node-sdk (repeated keys, an empty value), go-sdk and java-sdk (the same without it).
    func testTheNodeGoAndJavaVectors() {
        let node = url("foo/input", [("foo", "bar"), ("aaa", "42"), ("aaa", "21"), ("empty", "")],
                       key: "foo_key", workspace: "foo_workspace", template: "foo_template", expires: 1_714_525_200_000)
        XCTAssertEqual(node.signed(secret: "foo_secret"),
                       "https://foo_workspace.tlcdn.com/foo_template/foo%2Finput?aaa=42&aaa=21&auth_key=foo_key&empty=&exp=1714525200000&foo=bar&sig=sha256%3A1ab71ef553df3507a9e2cf7beb8f921538bbef49a13a94a22ff49f2f030a5e9e")
        var go = node
        go.parameters.removeAll { $0.name == "empty" }
        XCTAssertEqual(go.signed(secret: "foo_secret"),
                       "https://foo_workspace.tlcdn.com/foo_template/foo%2Finput?aaa=42&aaa=21&auth_key=foo_key&exp=1714525200000&foo=bar&sig=sha256%3A9a8df3bb28eea621b46ec808a250b7903b2546be7e66c048956d4f30b8da7519")
    }

    /// ruby-sdk: an empty input, a path, empty and repeated values.
    func testTheRubyVectors() {
        let base = { (input: String, parameters: [(String, String)]) in
            self.url(input, parameters, key: "my-key", workspace: "my-app", template: "test-smart-cdn", expires: 1_732_550_672_867).signed(secret: "my-secret")
        }
        XCTAssertEqual(base("", []), "https://my-app.tlcdn.com/test-smart-cdn/?auth_key=my-key&exp=1732550672867&sig=sha256%3Ad5e13df4acde8d4aaa0f34534489e54098b5128c54392600ed96dd77669a533e")
        let photo = "https://my-app.tlcdn.com/test-smart-cdn/inputs%2Fprinsengracht.jpg?auth_key=my-key&exp=1732550672867"
        XCTAssertEqual(base("inputs/prinsengracht.jpg", []), photo + "&sig=sha256%3A8620fc2a22aec6081cde730b7f3f29c0d8083f58a68f62739e642b3c03709139")
        XCTAssertEqual(base("inputs/prinsengracht.jpg", [("width", ""), ("height", "200")]),
                       photo + "&height=200&width=&sig=sha256%3Aebf562722c504839db97165e657583f74192ac4ab580f1a0dd67d3d868b4ced3")
        XCTAssertEqual(base("inputs/prinsengracht.jpg", [("height", "200")]),
                       photo + "&height=200&sig=sha256%3Ad6897a0cb527a14eaab13c54b06f53527797c553d8b7e5d0b1a5df237212f083")
        XCTAssertEqual(base("inputs/prinsengracht.jpg", [("tags", "landscape"), ("tags", "amsterdam"), ("tags", ""), ("height", "200")]),
                       photo + "&height=200&tags=landscape&tags=amsterdam&tags=&sig=sha256%3Aff46eb0083d64b250b2e4510380e333f67da855b2401493dee7a706a47957d3f")
    }

    /// php-sdk and python-sdk (`pytransloadit`'s `get_signed_smart_cdn_url`).
    func testThePHPAndPythonVectors() {
        let base = { (input: String, parameters: [(String, String)]) in
            self.url(input, parameters, key: "test-key", workspace: "workspace", template: "template", expires: 1_732_550_672_867).signed(secret: "test-secret")
        }
        let file = "https://workspace.tlcdn.com/template/file.jpg?auth_key=test-key&exp=1732550672867"
        XCTAssertEqual(base("file.jpg", []), file + "&sig=sha256%3Ad994b8a737db1c43d6e04a07018dc33e8e28b23b27854bd6383d828a212cfffb")
        XCTAssertEqual(base("input.jpg", []),
                       "https://workspace.tlcdn.com/template/input.jpg?auth_key=test-key&exp=1732550672867&sig=sha256%3A75991f02828d194792c9c99f8fea65761bcc4c62dbb287a84f642033128297c0")
        XCTAssertEqual(base("file.jpg", [("width", "100")]), file + "&width=100&sig=sha256%3Ae5271d8fb6482d9351ebe4285b6fc75539c4d311ff125c4d76d690ad71c258ef")
        XCTAssertEqual(base("file.jpg", [("width", ""), ("height", "200")]), file + "&height=200&width=&sig=sha256%3A1a26733c859f070bc3d83eb3174650d7a0155642e44a5ac448a43bc728bc0f85")
        XCTAssertEqual(base("file.jpg", [("height", "200")]), file + "&height=200&sig=sha256%3Adb740ebdfad6e766ebf6516ed5ff6543174709f8916a254f8d069c1701cef517")
        XCTAssertEqual(base("file.jpg", [("width", "")]), file + "&width=&sig=sha256%3A840426f9ac72dde02fd080f09b2304d659fdd41e630b1036927ec1336c312e9d")
    }

    /// Names as people write them: a space, an accent, a `#` and a `%` are escaped, never sent raw,
    /// and the caller cannot replace `auth_key`, `exp` or `sig`.
    func testRealNamesAreEscapedAndTheAuthParametersCannotBeOverridden() {
        let signed = url("photos/Île #2 50%.jpg", [("text", "a b&c"), ("auth_key", "forged"), ("sig", "x")],
                         key: "k", workspace: "w", template: "t", expires: 1).signed(secret: "s")
        XCTAssertTrue(signed.hasPrefix("https://w.tlcdn.com/t/photos%2F%C3%8Ele%20%232%2050%25.jpg?auth_key=k&exp=1&text=a+b%26c&sig=sha256%3A"), signed)
    }

    /// Keys sorted as the SDKs' URLSearchParams sorts them, by UTF-16 code units: past the basic
    /// plane that differs from Unicode scalar order. A workspace must be a host name's label.
    func testKeysSortByUTF16AndAWorkspaceIsAHostLabel() {
        let signed = url("x", [("ａ", "5"), ("😀", "4"), ("ä", "1")], key: "k", workspace: "w", template: "t", expires: 1).signed(secret: "s")
        XCTAssertTrue(signed.contains("?auth_key=k&exp=1&%C3%A4=1&%F0%9F%98%80=4&%EF%BD%81=5&sig="), signed)
        XCTAssertTrue(SmartCDNURL.isValidWorkspace("my-app2"))
        for bad in ["", "My App", "evil.com/x?", "-lead", "trail-", String(repeating: "a", count: 64)] {
            XCTAssertFalse(SmartCDNURL.isValidWorkspace(bad), bad)
        }
    }
}
