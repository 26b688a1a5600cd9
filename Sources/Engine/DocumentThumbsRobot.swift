internal import CVips
import Basics
import Foundation
import Spec

/// `/document/thumbs` with libvips' PDF loader (poppler): one image per page, or only `page`,
/// as png (the default), jpg or gif, sized by `width`/`height`/`resize_strategy` (the page's
/// size at 72 dpi when neither is given). Each image's `meta` has its `page_number`.
struct DocumentThumbsRobot: Sendable {
    let page: Int?
    let width: Int32
    let height: Int32
    let strategy: ResizeStrategy
    let ext: String

    init(_ parameters: DocumentThumbs.Parameters) throws(RobotError) {
        page = parameters.page
        width = Int32(parameters.width)
        height = Int32(parameters.height)
        strategy = try ResizeStrategy.chosen(parameters.resizeStrategy)
        ext = parameters.ext
    }

    func thumbnails(of file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] {
        if let failure = VipsLibrary.failure {
            throw RobotError(code: .internalCommandError, message: "libvips could not start (\(failure)); install it: apt-get install libvips42")
        }
        guard file.ext == "pdf" || file.mime == "application/pdf", let document = VipsImageRef(path: file.path, sequential: true) else {
            _ = VipsLibrary.lastError()
            throw RobotError(code: .documentThumbsError, message: "'\(file.name)' is not a PDF document")
        }
        let pages = document.pages
        let wanted: [Int]
        if let page {
            guard page <= pages else { throw RobotError(code: .documentThumbsError, message: "'\(file.name)' has \(pages) pages, not \(page)") }
            wanted = [page]
        } else {
            guard pages <= DocumentThumbs.maximumPages else {
                throw RobotError(code: .documentThumbsError, message: "'\(file.name)' has \(pages) pages; the local engine renders at most \(DocumentThumbs.maximumPages)")
            }
            wanted = Array(1...max(pages, 1))
        }
        var images: [AssemblyFile] = []
        for number in wanted {
            guard !context.isCanceled() else { throw RobotError.canceled }
            // libvips reads loader options after the name: page numbers start at 0 there.
            let source = file.path + "[page=\(number - 1)]"
            try ImageLimits.check(source, of: file, limit: context.limits.imagePixels)
            let rendered = width == 0 && height == 0
                ? VipsImageRef(path: source)
                : strategy.resize(source, width: width, height: height, upscale: true, background: (255, 255, 255))
            let slot = try ResultSlot(name: "\(file.basename)_\(number).\(ext)", in: context.folder)
            guard let rendered, pipeline_vips_write(rendered.pointer, slot.path) == 0 else {
                let detail = VipsLibrary.lastError().replacingOccurrences(of: file.path, with: file.name).replacingOccurrences(of: slot.path, with: slot.name)
                throw RobotError(code: .documentThumbsError, message: "cannot render page \(number) of '\(file.name)': \(detail)")
            }
            images.append(slot.file(from: file, meta: ["page_number": .int(number)]))
        }
        return images
    }
}

extension DocumentThumbs: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) throws(RobotError) -> RobotWork { .eachFile(try DocumentThumbsRobot(parameters)) }
}

extension DocumentThumbsRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { try thumbnails(of: file, context: context) }

    var decodesImages: Bool { true }
}
