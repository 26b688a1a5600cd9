/// `/document/thumbs`: an image of each page of a PDF (or of one page).
public enum DocumentThumbs: RobotDeclaration {
    public static let names = ["/document/thumbs"]
    public static let inputs = RobotInputs.kinds([.document])
    public static let digest = RobotDigest.perSourceFile
    /// The most pages a document may have.
    public static let maximumPages = 1000

    /// What a step sets.
    public struct Parameters: RobotParameters {
        public enum Option: String, RobotOption {
            case page, width, height, format
            case resizeStrategy = "resize_strategy"

            public var localValues: [String]? {
                switch self {
                case .format: ["gif", "jpeg", "jpg", "png"]
                case .resizeStrategy: LocalChoices.strategies
                default: nil
                }
            }
        }

        /// The one page rendered (from 1); nil for every page.
        public let page: Int?
        /// The size to fit into (0: the page's own).
        public let width: Int
        /// The height to fit into (0: the page's own).
        public let height: Int
        /// How the page fits into that size.
        public let resizeStrategy: String
        /// The images' extension.
        public let ext: String

        public init(from decoder: any Decoder) throws {
            let options = try OptionReader<Option>(decoder)
            page = try options.integer(.page, in: 1...DocumentThumbs.maximumPages)
            width = try options.integer(.width, in: 1...5000) ?? 0
            height = try options.integer(.height, in: 1...5000) ?? 0
            resizeStrategy = try options.choice(.resizeStrategy, default: "pad")
            let format = try options.choice(.format, default: "png")
            ext = format == "jpeg" ? "jpg" : format
        }
    }
}
