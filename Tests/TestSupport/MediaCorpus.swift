import Basics
import Foundation

/// Real media as phones, cameras and people make it, generated at test time with the tools
/// scripts/setup.sh installs (ffmpeg, exiftool, vips): photos in every EXIF orientation, private
/// metadata, CMYK, 16-bit and alpha, an animated GIF, a portrait phone video, awkward names, the
/// same name in two folders, and bad files (empty, cut short, a lying extension).
public enum MediaCorpus {
    /// A photo's stored size: landscape, so orientations 5 to 8 show it portrait.
    public static let stored = (width: 120, height: 80)

    /// The names people give files, each a JPEG below `photos/names/`.
    public static let awkwardNames = [
        "Print Edition #42.jpg", "100% real?.jpg", "with  two spaces.jpg", "cafe\u{301} de\u{301}compose\u{301}.jpg", "-leading dash.jpg",
    ]

    /// Writes the good files below `root` and returns their paths (relative to `root`) with the
    /// size a person sees, width by height. They are made once (`FixtureCache`) and copied.
    @discardableResult
    public static func writeGood(in root: String) throws -> [String: (width: Int, height: Int)] {
        let made = try FixtureCache.folder("media-corpus-good", recipe: #filePath) { folder in
            let seen = try makeGood(in: folder + "/files")
            let sizes = seen.mapValues { [$0.width, $0.height] }
            try JSONSerialization.data(withJSONObject: sizes).write(to: URL(fileURLWithPath: folder + "/sizes.json"))
        }
        try FixtureCache.copy(made + "/files", into: root)
        let sizes = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: made + "/sizes.json"))) as? [String: [Int]] ?? [:]
        return sizes.compactMapValues { size in size.count == 2 ? (size[0], size[1]) : nil }
    }

    /// Makes the good files below `root`, as `writeGood` describes them.
    private static func makeGood(in root: String) throws -> [String: (width: Int, height: Int)] {
        var seen: [String: (width: Int, height: Int)] = [:]
        for orientation in 1...8 {
            let path = "photos/orientation/o\(orientation).jpg"
            try image(root + "/" + path, width: stored.width, height: stored.height)
            try tool(["exiftool", "-q", "-overwrite_original", "-Orientation#=\(orientation)", root + "/" + path])
            seen[path] = orientation >= 5 ? (stored.height, stored.width) : stored
        }
        try image(root + "/photos/private.jpg", width: 100, height: 100)
        // As a phone writes it: a whole EXIF block (which exiftool -validate finds nothing wrong with), and who and where.
        try tool(["exiftool", "-q", "-overwrite_original", "-Make=Phone", "-Model=P1", "-DateTimeOriginal=2024:07:01 10:00:00", "-ExifVersion=0232",
                  "-ComponentsConfiguration#=1 2 3 0", "-FlashpixVersion=0100", "-ColorSpace#=1", "-ExifImageWidth=100", "-ExifImageHeight=100",
                  "-GPSLatitude=48.8566", "-GPSLatitudeRef=N", "-GPSLongitude=2.3522", "-GPSLongitudeRef=E",
                  "-Artist=Jane Doe", "-XMP-dc:Creator=Jane Doe", "-IPTC:By-line=Jane Doe", root + "/photos/private.jpg"])
        seen["photos/private.jpg"] = (100, 100)
        try image(root + "/photos/rgb.jpg", width: 90, height: 60)
        try tool(["vips", "colourspace", root + "/photos/rgb.jpg", root + "/photos/cmyk.jpg", "cmyk"])
        try FileManager.default.removeItem(atPath: root + "/photos/rgb.jpg")
        seen["photos/cmyk.jpg"] = (90, 60)
        try image(root + "/photos/deep.png", width: 70, height: 50, extra: ["-pix_fmt", "rgb48be"])
        seen["photos/deep.png"] = (70, 50)
        try image(root + "/photos/alpha.png", width: 50, height: 70, extra: ["-vf", "format=rgba,colorchannelmixer=aa=0.5"])
        seen["photos/alpha.png"] = (50, 70)
        try image(root + "/photos/animated.gif", width: 64, height: 48, frames: 3)
        seen["photos/animated.gif"] = (64, 48)
        for (index, folder) in ["2023/01", "2024/07"].enumerated() {
            let path = "photos/\(folder)/IMG_1024.JPG"
            try image(root + "/" + path, width: 80 + 20 * index, height: 60)
            seen[path] = (80 + 20 * index, 60)
        }
        for name in awkwardNames {
            try image(root + "/photos/names/" + name, width: 40, height: 30)
            seen["photos/names/" + name] = (40, 30)
        }
        // A PNG named .jpg: its content decides.
        try image(root + "/photos/lying.png", width: 30, height: 40)
        try FileManager.default.moveItem(atPath: root + "/photos/lying.png", toPath: root + "/photos/lying.jpg")
        seen["photos/lying.jpg"] = (30, 40)
        return seen
    }

    /// Writes the bad files below `root/bad/` and returns their paths (relative to `root`) with
    /// what is wrong: `empty`, or `cut short`.
    @discardableResult
    public static func writeBad(in root: String) throws -> [String: String] {
        var bad: [String: String] = ["bad/empty.jpg": "empty"]
        try FileManager.default.createDirectory(atPath: root + "/bad", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/bad/empty.jpg", contents: Data())
        for ext in ["jpg", "png", "gif", "webp"] {
            let path = root + "/bad/cut." + ext
            try image(path, width: 64, height: 48)
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: path))
            bad["bad/cut." + ext] = "cut short"
        }
        return bad
    }

    /// Writes JPEGs that are whole (they end where JPEG ends, so no check before a run sees them)
    /// but damaged inside, so libvips decodes them with a "Corrupt JPEG data" warning. Returns their paths relative to `root`.
    public static func writeDamaged(in root: String, names: [String]) throws -> [String] {
        try FileManager.default.createDirectory(atPath: root + "/damaged", withIntermediateDirectories: true)
        let noise = root + "/damaged.v"
        try tool(["vips", "gaussnoise", noise, "256", "256"])
        defer { try? FileManager.default.removeItem(atPath: noise) }
        return try names.map { name in
            let path = root + "/damaged/" + name
            try tool(["vips", "copy", noise, path])
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            guard let scan = (0..<bytes.count - 1).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }), scan + 402 < bytes.count else {
                throw CocoaError(.fileReadCorruptFile)
            }
            // A stray restart marker in the compressed data: a marker a reader of the structure
            // steps over, where the decoder expects none.
            (bytes[scan + 400], bytes[scan + 401]) = (0xFF, 0xD0)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return "damaged/" + name
        }
    }

    /// A phone's portrait video: frames stored 64x36 with a display rotation of 90 degrees, so it
    /// is seen 36x64.
    public static func writePortraitVideo(_ path: String) throws {
        let plain = path + ".plain.mp4"
        try FileManager.default.createDirectory(atPath: FolderPath.of(path), withIntermediateDirectories: true)
        try tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x36:rate=10", "-t", "1",
                  "-c:v", "libx264", "-pix_fmt", "yuv420p", plain])
        try tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", path])
        try FileManager.default.removeItem(atPath: plain)
    }

    /// An image of the test pattern at `path`, in the format its extension names.
    public static func image(_ path: String, width: Int, height: Int, frames: Int = 1, extra: [String] = []) throws {
        try FileManager.default.createDirectory(atPath: FolderPath.of(path), withIntermediateDirectories: true)
        try tool(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=10"] + extra
            + ["-frames:v", "\(frames)"] + (frames > 1 ? [] : ["-update", "1"]) + ["file:" + path])
    }

    private static func tool(_ command: [String]) throws {
        _ = try MediaTool.output(command)
    }
}
