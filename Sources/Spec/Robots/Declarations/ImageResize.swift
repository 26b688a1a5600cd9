import Basics

/// `/image/resize` with libvips: size, strategy, format, crop, trim, rotation and a watermark.
public enum ImageResize: RobotDeclaration {
    public static let names = ["/image/resize"]
    public static let inputs = RobotInputs.kinds([.image, .document])
    public static let digest = RobotDigest.perSourceFile

    /// A region cut from the image before it is resized, in pixels.
    public struct Region: Sendable, Equatable {
        /// The top-left corner.
        public var x1: Int, y1: Int
        /// The bottom-right corner (beyond the image: held to its edge).
        public var x2: Int, y2: Int

        /// The region from (x1, y1) to (x2, y2).
        public init(x1: Int, y1: Int, x2: Int, y2: Int) {
            (self.x1, self.y1, self.x2, self.y2) = (x1, y1, x2, y2)
        }
    }

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case width, height, format, quality, background, zoom, gravity, crop, strip, progressive, rotation
            case resizeStrategy = "resize_strategy"
            case trimWhitespace = "trim_whitespace"
            case watermarkURL = "watermark_url"
            case watermarkPosition = "watermark_position"
            case watermarkXOffset = "watermark_x_offset"
            case watermarkYOffset = "watermark_y_offset"
            case watermarkSize = "watermark_size"
            case watermarkResizeStrategy = "watermark_resize_strategy"
            case watermarkOpacity = "watermark_opacity"

            public var localValues: [String]? {
                switch self {
                case .format: ["avif", "gif", "jpeg", "jpg", "png", "tiff", "webp"]
                case .resizeStrategy: LocalChoices.strategies
                case .gravity, .watermarkPosition: LocalChoices.gravity
                case .watermarkResizeStrategy: ["fit", "stretch"]
                default: nil
                }
            }
        }

        /// The box to fit into (0: no limit that way).
        public let width: Int
        /// The box's height (0: no limit that way).
        public let height: Int
        /// How the image fits into the box.
        public let resizeStrategy: String
        /// The format written, lower-cased (nil: the input's, when the engine writes it).
        public let format: String?
        /// The encoder's quality.
        public let quality: Int?
        /// The colour padding is filled with.
        public let background: String
        /// Whether images smaller than the box grow.
        public let zoom: Bool
        /// Where a crop to the box is taken.
        public let gravity: String
        /// A region cut out first.
        public let crop: Region?
        /// Whether edges of the background colour are trimmed away before resizing.
        public let trimWhitespace: Bool
        /// Whether private metadata is removed.
        public let strip: Bool
        /// Whether JPEGs and PNGs are interlaced.
        public let progressive: Bool
        /// The watermark laid over the image, when a step gives its URL.
        public let watermark: WatermarkParameters?
        /// Quarter turns clockwise (the image's own orientation is always applied).
        public let quarterTurns: Int

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            width = try options.integer(.width, in: 1...20_000) ?? 0
            height = try options.integer(.height, in: 1...20_000) ?? 0
            resizeStrategy = try options.choice(.resizeStrategy, default: "fit")
            format = options.isGiven(.format) ? try options.choice(.format, default: "").lowercased() : nil
            quality = try options.value(.quality)?.intValue
            background = try options.value(.background)?.stringValue ?? "#ffffff"
            zoom = try options.value(.zoom)?.boolValue ?? true
            gravity = try options.choice(.gravity, default: "center")
            crop = try Self.region(try options.value(.crop))
            trimWhitespace = try options.bool(.trimWhitespace, default: false)
            strip = try options.bool(.strip, default: false)
            progressive = try options.bool(.progressive, default: false)
            watermark = try WatermarkParameters(options)
            switch try options.value(.rotation) {
            case nil, .bool, .string("auto"):
                quarterTurns = 0
            case .some(let value):
                guard let degrees = value.intValue, degrees % 90 == 0 else {
                    throw RobotOptionError(Option.rotation, "rotation \(value.serialized()) does not run locally; give true, \"auto\" or a multiple of 90")
                }
                quarterTurns = ((degrees / 90) % 4 + 4) % 4
            }
        }

        /// `crop: {x1, y1, x2, y2}` in pixels (x2, y2 beyond the image are held to its edge).
        static func region(_ value: JSONValue?) throws(RobotOptionError) -> Region? {
            guard let value, value != .null else { return nil }
            let numbers = ["x1", "y1", "x2", "y2"].map { value[$0]?.intValue }
            guard value.objectValue != nil, let x1 = numbers[0], let y1 = numbers[1], let x2 = numbers[2], let y2 = numbers[3],
                  x1 >= 0, y1 >= 0, x2 > x1, y2 > y1 else {
                throw RobotOptionError(Option.crop, "'crop' must be {x1, y1, x2, y2} in whole pixels with x2 > x1 and y2 > y1, not \(value.serialized())")
            }
            return Region(x1: x1, y1: y1, x2: x2, y2: y2)
        }
    }

    /// The watermark's options: the image at `url` laid over each resized image at `position`,
    /// `offset` pixels in from there, scaled to `size` of the image (or its own size) by
    /// `stretches` or fitting, and faded by `opacity`.
    public struct WatermarkParameters: Sendable {
        /// Where the watermark image is fetched from.
        public let url: String
        /// Where it sits (a `gravity` name).
        public let position: String
        /// Pixels in from that edge.
        public let offset: (x: Int, y: Int)
        /// The share of the image's width and height the watermark may take, or nil for its own size.
        public let size: Double?
        /// Whether it is stretched to that share (else fitted into it).
        public let stretches: Bool
        /// From 0 (invisible) to 1.
        public let opacity: Double

        /// The watermark a step asks for; nil when it gives no `watermark_url` (its other options then count for nothing).
        init?(_ options: OptionReader<Parameters.Option>) throws {
            guard try options.set(.watermarkURL) != nil else { return nil }
            url = try options.string(.watermarkURL, default: "")
            position = try options.choice(.watermarkPosition, default: "center")
            offset = (try options.integer(.watermarkXOffset, in: -20_000...20_000) ?? 0, try options.integer(.watermarkYOffset, in: -20_000...20_000) ?? 0)
            let sizeText = try options.string(.watermarkSize, default: "")
            if sizeText.isEmpty {
                size = nil
            } else {
                guard sizeText.hasSuffix("%"), let percent = Double(sizeText.dropLast()), percent > 0, percent <= 100 else {
                    throw RobotOptionError(Parameters.Option.watermarkSize, "watermark_size must be a percentage of the image such as '25%', not '\(sizeText)'")
                }
                size = percent / 100
            }
            stretches = try options.choice(.watermarkResizeStrategy, default: "fit") == "stretch"
            let given = try options.value(.watermarkOpacity)
            let opacity = given?.doubleValue ?? 1
            guard (0...1).contains(opacity), given.map({ $0.doubleValue != nil }) ?? true else {
                throw RobotOptionError(Parameters.Option.watermarkOpacity, "watermark_opacity must be a number from 0 to 1")
            }
            self.opacity = opacity
        }
    }
}
