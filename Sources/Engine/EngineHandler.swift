import Foundation
import HTTPServer

/// Routes requests to the engine's parts: tus uploads, the Assembly API and result files.
final class EngineHandler: HTTPServerHandler {
    let tus: TusEndpoint
    let assemblies: AssemblyAPI
    let templates: TemplateAPI
    let health: EngineHealth.Source

    init(tus: TusEndpoint, assemblies: AssemblyAPI, templates: TemplateAPI, health: EngineHealth.Source) {
        (self.tus, self.assemblies, self.templates, self.health) = (tus, assemblies, templates, health)
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
            return .respond(.json(200, health.now().json))
        }
        if head.path == "/metrics" {
            let text = health.now().prometheusText
            return .respond(ServerResponse(status: 200, headers: [("Content-Type", EngineHealth.prometheusContentType)], body: .data(Data(text.utf8))))
        }
        return .respond(APIRefusal.noRoute(head.method, head.path).response)
    }
}
