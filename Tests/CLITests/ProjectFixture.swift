import Foundation
import TestSupport

/// A throwaway project: a manifest, a policy and some real images in a temporary folder.
final class ProjectFixture: @unchecked Sendable {
    let directory: TemporaryDirectory

    init(width: Int = 200, batch: String = "2") throws {
        directory = try TemporaryDirectory()
        // Real images (PNG content under .jpg names: plan goes by content), each its own size.
        for (index, name) in ["a", "b", "c", "sub/d"].enumerated() {
            try directory.write("images/\(name).jpg", data: TestImages.png(width: 4 + index, height: 3))
        }
        try directory.write("images/_drafts/x.jpg", data: TestImages.png(width: 2, height: 2))
        try writeManifest(width: width, batch: batch)
        try directory.write("policy.yml", """
            version: 1
            max_expires_in: 1h
            fields: {allowed: [kind]}
            robots:
              /image/resize:
                width: {type: integer, min: 1, max: 4000}
                result: {type: boolean}
            """)
    }

    var manifest: String { directory.path + "/pipeline.yml" }

    func writeManifest(width: Int, batch: String = "2", extra: String = "") throws {
        try directory.write("pipeline.yml", """
            version: 1
            name: fixture
            policy: policy.yml
            assemblies:
              thumbs:
                inputs: ["images/**/*.jpg", "!images/_drafts/**"]
                batch: \(batch)
                steps:
                  thumb:
                    robot: /image/resize
                    use: :original
                    width: \(width)
                    result: true
                fields: {kind: thumb}
                download: build/thumbs
            \(extra)
            """)
    }

    deinit { directory.remove() }
}
