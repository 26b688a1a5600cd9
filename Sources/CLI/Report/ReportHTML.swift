import Basics
import Crypto
import Foundation
import Wire

/// A `ReportModel` as one self-contained HTML page: no script or style from anywhere else, previews
/// embedded as data URLs, readable without JavaScript (a small script only adds the filters).
enum ReportHTML {
    /// The page for `model`; with `previous`, a section pairs each result that changed with its old version.
    static func render(_ model: ReportModel, previous: ReportModel? = nil) -> String {
        let jobs = orderedUnique(model.assemblies.map(\.job))
        let statuses = orderedUnique(model.assemblies.map(\.status))
        let failed = model.assemblies.filter { $0.status != AssemblyStatusCode.completed }.count
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
            <title>\(MarkupText.html(model.title)): run report</title>
            <style>\(style)</style>
            </head>
            <body>
            <header>
            <h1>\(MarkupText.html(model.title)): run report</h1>
            <p id="summary">\(model.assemblies.count) Assemblies, \(failed) not completed, \(model.assemblies.reduce(0) { $0 + $1.sources.count }) source files.</p>
            <form id="filters" hidden>
            <label>Job <select id="job-filter"><option value="">all</option>\(jobs.map { "<option>\(MarkupText.html($0))</option>" }.joined())</select></label>
            <label>Status <select id="status-filter"><option value="">all</option>\(statuses.map { "<option>\(MarkupText.html($0))</option>" }.joined())</select></label>
            </form>
            </header>
            <main>

            """
        html += failures(model)
        if let previous { html += compare(model, previous) }
        for job in jobs {
            html += "<section class=\"job\" data-job=\"\(MarkupText.html(job))\">\n<h2>Job \(MarkupText.html(job))</h2>\n"
            for assembly in model.assemblies where assembly.job == job { html += render(assembly) }
            html += "</section>\n"
        }
        html += "</main>\n<script>\(script)</script>\n</body>\n</html>\n"
        return html
    }

    private static func render(_ assembly: ReportModel.Assembly) -> String {
        let ok = assembly.status == AssemblyStatusCode.completed
        var html = "<article id=\"a-\(MarkupText.html(assembly.planID))\" class=\"assembly\(ok ? "" : " failed")\" data-assembly=\"\(MarkupText.html(assembly.planID))\" data-status=\"\(MarkupText.html(assembly.status))\" data-job=\"\(MarkupText.html(assembly.job))\">\n"
        html += "<h3>Assembly \(MarkupText.html(String(assembly.planID.prefix(12)))) <span class=\"status\">\(MarkupText.html(assembly.status))</span></h3>\n"
        if let id = assembly.assemblyID { html += "<p class=\"meta\">Assembly id <code>\(MarkupText.html(id))</code></p>\n" }
        if !ok { html += "<p class=\"failure\" role=\"alert\">\(MarkupText.html(assembly.status)): \(MarkupText.html(assembly.message ?? "no message"))</p>\n" }
        html += "<table>\n<thead><tr><th scope=\"col\">Source</th><th scope=\"col\">Results</th></tr></thead>\n<tbody>\n"
        for source in assembly.sources {
            html += "<tr><td>\(figure(source.file))</td><td>"
            if source.results.isEmpty { html += "<span class=\"none\">no results</span>" }
            for note in source.notes { html += "<p class=\"note\">\(MarkupText.html(note))</p>" }
            for (step, items) in source.results {
                html += "<div class=\"step\"><span class=\"step-name\">\(MarkupText.html(step))</span>" + items.map(figure).joined() + "</div>"
            }
            html += "</td></tr>\n"
        }
        return html + "</tbody>\n</table>\n</article>\n"
    }

    /// The Assemblies that did not complete, first, each linking to its own section.
    private static func failures(_ model: ReportModel) -> String {
        let failed = model.assemblies.filter { $0.status != AssemblyStatusCode.completed }
        guard !failed.isEmpty else { return "" }
        return "<section id=\"failures\">\n<h2>Not completed (\(failed.count))</h2>\n<ul>\n" + failed.map { assembly in
            "<li><a href=\"#a-\(MarkupText.html(assembly.planID))\">\(MarkupText.html(assembly.job)) · Assembly \(MarkupText.html(String(assembly.planID.prefix(12))))</a>: "
                + "<span class=\"failure\">\(MarkupText.html(assembly.status))</span> \(MarkupText.html(assembly.message ?? ""))</li>\n"
        }.joined() + "</ul>\n</section>\n"
    }

    /// Results whose file changed since `previous`, old beside new (by job, source, step and name).
    private static func compare(_ model: ReportModel, _ previous: ReportModel) -> String {
        // Byte for byte: sources whose names differ only by Unicode normalization are two.
        func key(_ assembly: ReportModel.Assembly, _ source: ReportModel.Source, _ step: String, _ item: ReportModel.Item) -> ExactName {
            ExactName([assembly.job, source.file.name, step, item.name].joined(separator: "\u{0}"))
        }
        var old: [ExactName: ReportModel.Item] = [:]
        for assembly in previous.assemblies {
            for source in assembly.sources { for (step, items) in source.results { for item in items { old[key(assembly, source, step, item)] = item } } }
        }
        var rows = ""
        var count = 0
        for assembly in model.assemblies {
            for source in assembly.sources {
                for (step, items) in source.results {
                    for item in items {
                        guard let before = old[key(assembly, source, step, item)], before.size != item.size || before.link != item.link else { continue }
                        count += 1
                        rows += "<tr data-job=\"\(MarkupText.html(assembly.job))\"><th scope=\"row\">\(MarkupText.html(assembly.job)) · \(MarkupText.html(source.file.name)) · \(MarkupText.html(step))</th>"
                            + "<td>\(figure(before))</td><td>\(figure(item))</td></tr>\n"
                    }
                }
            }
        }
        return "<section id=\"compare\">\n<h2>Changed results (\(count))</h2>\n"
            + (count == 0 ? "<p>No result changed.</p>\n"
                : "<table class=\"compare\">\n<thead><tr><th scope=\"col\">Result</th><th scope=\"col\">Before</th><th scope=\"col\">After</th></tr></thead>\n<tbody>\n\(rows)</tbody>\n</table>\n")
            + "</section>\n"
    }

    private static func figure(_ item: ReportModel.Item) -> String {
        let caption = [MarkupText.html(item.name), item.size.map { ByteSize(bytes: $0).description }, item.facts.map(MarkupText.html)].compactMap { $0 }.joined(separator: " · ")
        var html = "<figure class=\"file\">"
        if let preview = item.preview {
            html += "<img src=\"data:image/jpeg;base64,\(preview.base64EncodedString())\" alt=\"\(MarkupText.html(item.name)) (\(MarkupText.html(item.mime)))\">"
        } else {
            html += "<div class=\"placeholder\" aria-hidden=\"true\">\(MarkupText.html(String(item.mime.split(separator: "/").last ?? "file")))</div>"
        }
        let named = item.link.map { "<a href=\"\(MarkupText.html($0))\">\(caption)</a>" } ?? caption
        return html + "<figcaption>\(named)</figcaption></figure>"
    }

    private static func orderedUnique(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        return values.filter { seen.insert($0).inserted }
    }

    /// What the page may load and run: its own style and script (by hash), embedded previews, nothing
    /// else; so a value that escaped its attribute could still run nothing and fetch nothing.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src '\(hashSource(script))'", "style-src '\(hashSource(style))'",
        "img-src data:", "base-uri 'none'", "form-action 'none'",
    ].joined(separator: "; ")

    private static func hashSource(_ text: String) -> String {
        "sha256-" + Data(SHA256.digest(text).bytes).base64EncodedString()
    }

    private static let style = """
        body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
        header{padding:16px 24px;background:#fff;border-bottom:1px solid #ddd}main{padding:8px 24px 32px}
        h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:24px 0 8px}h3{font-size:15px;margin:0 0 6px}
        .assembly{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px;margin:12px 0}
        .assembly.failed{border-color:#c62828}.failure{color:#b71c1c;font-weight:600}.note{color:#8a4b00;margin:.2em 0}
        .status{font-weight:400;color:#555;font-size:13px}.meta{color:#555;font-size:13px;margin:0 0 8px}
        table{border-collapse:collapse;width:100%}td,th{vertical-align:top;text-align:left;padding:6px;border-top:1px solid #eee}
        .step{display:inline-block;margin:0 12px 8px 0;vertical-align:top}.step-name{display:block;font-size:12px;color:#555}
        figure{display:inline-block;margin:0 8px 0 0;max-width:180px;vertical-align:top}
        img{max-width:160px;max-height:160px;border:1px solid #ccc;background:#eee}
        figcaption{font-size:12px;overflow-wrap:anywhere}
        .placeholder{width:120px;height:80px;display:flex;align-items:center;justify-content:center;background:#eceff1;color:#455a64;border:1px solid #cfd8dc}
        form label{margin-right:16px}select:focus,a:focus{outline:2px solid #1565c0}
        """

    // Filters for readers with JavaScript; without it every Assembly is shown.
    private static let script = """
        (function(){var f=document.getElementById('filters');f.hidden=false;
        var j=document.getElementById('job-filter'),s=document.getElementById('status-filter');
        function apply(){document.querySelectorAll('.assembly').forEach(function(a){
        a.hidden=(j.value&&a.dataset.job!==j.value)||(s.value&&a.dataset.status!==s.value);});
        document.querySelectorAll('.job').forEach(function(x){x.hidden=j.value&&x.dataset.job!==j.value;});}
        j.addEventListener('change',apply);s.addEventListener('change',apply);})();
        """
}
