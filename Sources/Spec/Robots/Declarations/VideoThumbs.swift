import Basics

/// `/video/thumbs`: frames of a video as images.
public enum VideoThumbs: RobotDeclaration {
    public static let names = ["/video/thumbs"]
    public static let inputs = RobotInputs.kinds([.video])
    public static let digest = RobotDigest.perSourceFile

    /// Where a frame is taken.
    public enum Offset: Sendable, Equatable { case seconds(Double), percent(Double) }

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case count, offsets, width, height, format
            case resizeStrategy = "resize_strategy"

            public var localValues: [String]? {
                switch self {
                case .format: ["jpeg", "jpg", "png"]
                case .resizeStrategy: LocalChoices.strategies
                default: nil
                }
            }
        }

        /// How many frames, spread over the video, when no offsets are given.
        public let count: Int
        /// Where the frames are taken (empty: `count` frames spread evenly).
        public let offsets: [Offset]
        /// The images' extension.
        public let ext: String
        /// The size frames fit into.
        public let width: Int?
        /// The frame height asked for.
        public let height: Int?
        /// How frames fit into that size.
        public let resizeStrategy: String

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            count = try options.integer(.count, in: 1...999, default: 8)
            let given = try options.set(.offsets)
            if let given, given.arrayValue == nil {
                throw RobotOptionError(Option.offsets, "'offsets' must be an array such as [2, \"50%\"], not \(given.serialized())")
            }
            var offsets: [Offset] = []
            for value in given?.arrayValue ?? [] {
                if let seconds = value.doubleValue, seconds >= 0 {
                    offsets.append(.seconds(seconds))
                } else if let text = value.stringValue, text.hasSuffix("%"), let percent = Double(text.dropLast()), (0...100).contains(percent) {
                    offsets.append(.percent(percent))
                } else {
                    throw RobotOptionError(Option.offsets, "'offsets' holds seconds (2.5) or percentages (\"50%\"), not \(value.serialized())")
                }
            }
            guard offsets.count <= 999 else { throw RobotOptionError(Option.offsets, "'offsets' may hold at most 999 entries") }
            self.offsets = offsets
            ext = try options.choice(.format, default: "jpeg") == "png" ? "png" : "jpg"
            width = try options.integer(.width, in: 1...1920)
            height = try options.integer(.height, in: 1...1080)
            resizeStrategy = try options.choice(.resizeStrategy, default: "pad")
        }
    }
}
