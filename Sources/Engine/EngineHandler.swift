import Foundation
import HTTPServer

/// Routes requests to the engine's parts: tus uploads, the Assembly API and result files.
final class EngineHandler: HTTPServerHandler {
    let tus: TusEndpoint

    init(tus: TusEndpoint) {
        self.tus = tus
    }

    func plan(_ head: RequestHead) -> RequestPlan {
        if head.path.hasPrefix(tus.basePath) || head.path == String(tus.basePath.dropLast()) {
            var normalized = head
            if head.path == String(tus.basePath.dropLast()) { normalized.path = tus.basePath }
            return tus.plan(normalized)
        }
        return .respond(.json(404, #"{"error":"NOT_FOUND","message":"no such path"}"#))
    }
}
