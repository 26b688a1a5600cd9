import Basics
import Spec
import XCTest

/// Storage steps in a manifest: no secret is written in one, and the local engine's emulation
/// is announced only for the steps it still emulates.
final class StorageStepTests: XCTestCase {
    private func manifest(_ step: String) -> String {
        """
        version: 1
        endpoint: local
        assemblies:
          job:
            inputs: ["*.txt"]
            steps:
              stored: \(step)
        """
    }

    func testAnInlineSecretIsRefusedAtItsKey() {
        let loaded = ManifestLoader(environment: [:]).decode(Data(manifest("{robot: /s3/store, use: \":original\", bucket: b, key: AKIA, secret: hunter2}").utf8), file: "m.yml")
        let secret = loaded.diagnostics.first { $0.id == "manifest.inline-secret" }
        XCTAssertEqual(secret?.location?.line, 7)
        XCTAssertFalse(loaded.diagnostics.map(\.message).joined().contains("hunter2"))
        XCTAssertTrue(secret?.hint?.contains("PIPELINE_CREDENTIALS_NAME_KEY") == true)
        XCTAssertNil(loaded.value)
    }

    func testTheEmulationIsAnnouncedOnlyWhereItStillApplies() throws {
        let step = "{robot: /s3/store, use: \":original\", credentials: site-assets}"
        let emulated = try XCTUnwrap(ManifestLoader(environment: [:]).decode(Data(manifest(step).utf8), file: "m.yml").value)
        let warning = emulated.localEngineProblems(environment: [:]).first { $0.id == "manifest.local-export" }
        XCTAssertNotNil(warning)
        XCTAssertTrue(warning?.hint?.contains("PIPELINE_CREDENTIALS_SITE_ASSETS_KEY") == true, warning?.hint ?? "")
        let environment = ["PIPELINE_CREDENTIALS_SITE_ASSETS_KEY": "k", "PIPELINE_CREDENTIALS_SITE_ASSETS_SECRET": "s"]
        XCTAssertEqual(emulated.localEngineProblems(environment: environment).filter { $0.id == "manifest.local-export" }, [])
        // A host makes it real too (the engine says so if it has no credentials for it).
        let hosted = try XCTUnwrap(ManifestLoader(environment: [:]).decode(Data(manifest("{robot: /s3/store, use: \":original\", credentials: x, host: \"http://127.0.0.1:9000\"}").utf8), file: "m.yml").value)
        XCTAssertEqual(hosted.localEngineProblems(environment: [:]).filter { $0.id == "manifest.local-export" }, [])
        // Other stores stay emulated whatever they say.
        let google = try XCTUnwrap(ManifestLoader(environment: [:]).decode(Data(manifest("{robot: /google/store, use: \":original\", credentials: site}").utf8), file: "m.yml").value)
        XCTAssertEqual(google.localEngineProblems(environment: environment).filter { $0.id == "manifest.local-export" }.count, 1)
    }
}
