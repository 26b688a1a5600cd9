import Foundation
import HTTPServer

/// Routes requests to the engine's parts: tus uploads, the Assembly API and result files.
final class EngineHandler: HTTPServerHandler {
    let tus: TusEndpoint
    let assemblies: AssemblyAPI
    let templates: TemplateAPI

    init(tus: TusEndpoint, assemblies: AssemblyAPI, templates: TemplateAPI) {
        self.tus = tus
        self.assemblies = assemblies
        self.templates = templates
    }

    func plan(_ head: RequestHead) -> RequestPlan {
        let tusRoot = String(tus.basePath.dropLast())
        if head.path.hasPrefix(tus.basePath) || head.path == tusRoot {
            var normalized = head
            if head.path == tusRoot { normalized.path = tus.basePath }
            return tus.plan(normalized)
        }
        if head.path == "/assemblies" || head.path.hasPrefix("/assemblies/") {
            return assemblies.plan(head)
        }
        if head.path.hasPrefix("/assembly_notifications/") {
            return assemblies.planNotificationReplay(head)
        }
        if head.path == "/templates" || head.path.hasPrefix("/templates/") {
            return templates.plan(head)
        }
        if ResultPath(head.path) != nil {
            return .respond(assemblies.serveFile(head))
        }
        if head.path == "/" || head.path == "/healthz" {
            return .respond(.json(200, #"{"ok":"ENGINE_RUNNING","engine":"pipeline serve"}"#))
        }
        return .respond(APIRefusal.noRoute(head.method, head.path).response)
    }
}
