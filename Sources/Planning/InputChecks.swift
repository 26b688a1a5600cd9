import Basics
import Spec

/// Files the job's robots cannot process, found while the plan hashes them: empty files, images
/// cut short, and content (sniffed, not the name) that no step receiving the uploads takes. One
/// diagnostic per file, at the input pattern that chose it: an error, or a warning when every such
/// step has `ignore_errors` for `execute` (the file is then left out and named).
enum InputChecks {
    static func findings(job: Job, files: some Sequence<PlannedFile>) -> [Diagnostic] {
        let receiving = job.steps.filter { StepUses.of($0.instructions).contains(":original") }
        // Only steps whose robots process known kinds of media say what a file must be.
        guard !receiving.isEmpty, receiving.allSatisfy({ RobotCatalog.inputKindsText($0.robot) != nil }) else { return [] }
        // A damaged file fails where a robot processes it: `execute` is what leaves it out.
        let tolerated = receiving.allSatisfy { (RobotCatalog.ignoredPhases($0.instructions["ignore_errors"]) ?? []).contains("execute") }
        let patterns = job.inputs.filter { !$0.value.hasPrefix("!") }.compactMap { input in (try? GlobPattern(input.value)).map { ($0, input.location) } }  // refused by planning already
        var findings: [Diagnostic] = []
        for file in files {
            guard let inspection = file.inspection, let reason = problem(file.path, inspection, receiving) else { continue }
            let location = patterns.first { $0.0.matches(file.path.split(separator: "/")) }?.1 ?? job.name.location
            let id = inspection.problem == .empty ? "plan.empty-file" : inspection.problem == .truncated ? "plan.truncated-file" : "plan.unprocessable-file"
            let shown = TerminalText.printable(file.path)
            let message = "'\(shown)' \(reason)"
            if tolerated {
                findings.append(.warning(id, message + "; the steps' ignore_errors leave it out", at: location))
            } else {
                let names = receiving.map { "'\($0.name.value)'" }
                let steps = names.count == 1 ? "step " + names[0] : "steps " + names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
                findings.append(.error(
                    id, message + "; job '\(job.name.value)' cannot process it", at: location,
                    hint: "replace the file, exclude it with '!\(TerminalText.printable(GlobPattern.escaped(file.path)))' in inputs, or add 'ignore_errors: [meta, execute]' to \(steps) to leave such files out"))
            }
        }
        return findings
    }

    /// What is wrong with the file for these steps, as the end of a sentence; nil when nothing is.
    private static func problem(_ path: String, _ inspection: ContentInspection, _ steps: [Step]) -> String? {
        switch inspection.problem {
        case .empty?: return "is empty (0 bytes)"
        case .truncated?: return "is cut short: \(inspection.mediaType.map(describe) ?? "a file") without its end"
        case nil: break
        }
        let named = MediaTypes.guess(path)
        // Content no sniffing knows (SVG, text) is what its name says, unless the name claims a format sniffing knows.
        let kind = inspection.mediaType == nil && !ContentInspection.isSniffable(named)
            ? ContentInspection(mediaType: named, problem: nil).kind : inspection.kind
        guard !steps.contains(where: { RobotCatalog.takes($0.robot, kind: kind) }) else { return nil }
        let takes = Set(steps.compactMap { RobotCatalog.inputKindsText($0.robot) }).sorted().joined(separator: "; ")
        guard let mediaType = inspection.mediaType else {
            let claim = named == "application/octet-stream" ? "" : " (its name says \(describe(named)))"
            return "holds no image, video, audio or PDF its content shows\(claim); the steps take \(takes)"
        }
        return "is \(describe(mediaType)) by its content; the steps take \(takes)"
    }

    /// "a JPEG image", "a PDF document", "an MP4 video" for a media type.
    static func describe(_ mediaType: String) -> String {
        names[mediaType] ?? "a file of type \(mediaType)"
    }

    private static let names = [
        "image/jpeg": "a JPEG image", "image/png": "a PNG image", "image/gif": "a GIF image", "image/tiff": "a TIFF image",
        "image/webp": "a WebP image", "image/avif": "an AVIF image", "image/heic": "a HEIC image", "image/svg+xml": "an SVG image",
        "application/pdf": "a PDF document", "video/quicktime": "a QuickTime video", "audio/mp4": "an M4A audio file", "video/mp4": "an MP4 video",
        "video/webm": "a WebM video", "video/x-matroska": "a Matroska video", "audio/ogg": "an Ogg audio file", "audio/flac": "a FLAC audio file",
        "audio/wav": "a WAV audio file", "video/x-msvideo": "an AVI video", "audio/mpeg": "an MP3 audio file", "application/zip": "a ZIP archive",
        "application/gzip": "a gzip archive", "text/plain": "a text file",
    ]
}
