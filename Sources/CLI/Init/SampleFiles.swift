import Basics
internal import CZlib
import Foundation

/// Small sample inputs `pipeline init` writes when a folder has none of its own: PNG images
/// drawn here, a PDF written here, and for media a clip and a tone made with ffmpeg.
enum SampleFiles {
    /// A `width` x `height` PNG: a gradient of `hue` (0 to 1) with a light disc, RGB, deflated.
    static func png(width: Int, height: Int, hue: Double) -> Data {
        var raw = Data(capacity: (width * 3 + 1) * height)
        let (red, green, blue) = color(hue: hue)
        for y in 0..<height {
            raw.append(0)  // no filter
            for x in 0..<width {
                let shade = 0.45 + 0.55 * Double(x + y) / Double(width + height)
                let dx = Double(x - width / 2), dy = Double(y - height / 2)
                let inDisc = dx * dx + dy * dy < Double(min(width, height) * min(width, height)) / 16
                let light = inDisc ? 0.6 : 0.0
                for channel in [red, green, blue] {
                    raw.append(UInt8(min(255, (channel * shade * (1 - light) + 255 * light).rounded())))
                }
            }
        }
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(bigEndian(UInt32(width)))
        header.append(bigEndian(UInt32(height)))
        header.append(contentsOf: [8, 2, 0, 0, 0])  // 8-bit RGB, deflate, no filter method, no interlace
        png.append(chunk("IHDR", header))
        png.append(chunk("IDAT", deflate(raw)))
        png.append(chunk("IEND", Data()))
        return png
    }

    /// A PDF of `pages` pages of 595 x 842 points, each saying its title and number.
    static func pdf(title: String, pages: Int) -> Data {
        var objects: [String] = []
        let pageIDs = (0..<pages).map { 3 + 2 * $0 }
        objects.append("<< /Type /Catalog /Pages 2 0 R >>")
        objects.append("<< /Type /Pages /Kids [\(pageIDs.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages) >>")
        let font = 3 + 2 * pages
        let safeTitle = title.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && !"()\\".unicodeScalars.contains($0) }.map(String.init).joined()
        for page in 1...pages {
            let text = "BT /F1 36 Tf 72 720 Td (\(safeTitle)) Tj 0 -60 Td /F1 24 Tf (Page \(page) of \(pages)) Tj ET"
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 \(font) 0 R >> >> /Contents \(4 + 2 * (page - 1)) 0 R >>")
            objects.append("<< /Length \(text.utf8.count) >>\nstream\n\(text)\nendstream")
        }
        objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        var document = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(document.utf8.count)
            document += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = document.utf8.count
        document += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        document += offsets.map { String(format: "%010d 00000 n \n", $0) }.joined()
        document += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(document.utf8)
    }

    /// Makes `path` with ffmpeg from its test sources (`-f lavfi`); the error says what ffmpeg said.
    static func media(_ path: String, source: [String]) throws(SampleError) {
        let command = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + source + [path]
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess.runBlocking(command, timeout: .seconds(120))
        } catch {
            throw SampleError(message: "cannot run ffmpeg to make the sample '\(path)': \(error)")
        }
        guard outcome.status == 0 else {
            throw SampleError(message: outcome.status == 127
                ? "the media samples are made with ffmpeg, which is not installed (apt-get install ffmpeg)"
                : "ffmpeg could not make the sample '\(path)': \(outcome.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    /// Whether an `ffmpeg` program is on `path` (a `PATH` value).
    static func hasFFmpeg(path: String?) -> Bool {
        (path ?? "/usr/bin:/bin").split(separator: ":").contains { access(String($0) + "/ffmpeg", X_OK) == 0 }
    }

    struct SampleError: Error {
        var message: String
    }

    private static func color(hue: Double) -> (Double, Double, Double) {
        func channel(_ offset: Double) -> Double {
            let value = abs((hue + offset).truncatingRemainder(dividingBy: 1) * 6 - 3) - 1
            return 255 * min(1, max(0, value))
        }
        return (channel(0), channel(2.0 / 3), channel(1.0 / 3))
    }

    private static func deflate(_ data: Data) -> Data {
        var size = compressBound(uLong(data.count))
        var output = [UInt8](repeating: 0, count: Int(size))
        let status = data.withUnsafeBytes { bytes in
            compress2(&output, &size, bytes.bindMemory(to: UInt8.self).baseAddress, uLong(data.count), 6)
        }
        return status == Z_OK ? Data(output.prefix(Int(size))) : Data()
    }

    private static func chunk(_ type: String, _ body: Data) -> Data {
        var typed = Data(type.utf8)
        typed.append(body)
        var result = bigEndian(UInt32(body.count))
        result.append(typed)
        let crc = typed.withUnsafeBytes { bytes in crc32(0, bytes.bindMemory(to: UInt8.self).baseAddress, uInt(typed.count)) }
        result.append(bigEndian(UInt32(crc)))
        return result
    }

    private static func bigEndian(_ value: UInt32) -> Data {
        Data([UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }
}
