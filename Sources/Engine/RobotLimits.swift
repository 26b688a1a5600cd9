/// The limits robots hold their inputs to, against files made to exhaust the engine.
public struct RobotLimits: Sendable {
    /// The longest audio or video taken, in seconds.
    public var mediaDuration: Double
    /// The most pixels an image or document page may declare: a small file can declare a huge
    /// canvas (a decompression bomb), which would take gigabytes to decode.
    public var imagePixels: Int

    /// Creates limits: by default 4 hours of media and 100 million pixels.
    public init(mediaDuration: Double = 4 * 3600, imagePixels: Int = 100_000_000) {
        self.mediaDuration = mediaDuration
        self.imagePixels = imagePixels
    }
}
