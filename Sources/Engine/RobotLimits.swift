/// The limits robots hold their inputs to, against files made to exhaust the engine.
public struct RobotLimits: Sendable {
    /// The longest audio or video taken, in seconds.
    public var mediaDuration: Double
    /// The most pixels an image or document page may declare: a small file can declare a huge
    /// canvas (a decompression bomb), which would take gigabytes to decode.
    public var imagePixels: Int
    /// The largest file `/http/import` fetches (a step's `max_file_size` may lower it).
    public var importBytes: Int64
    /// Whether `/http/import` may fetch from this machine (127.0.0.0/8, ::1). Private networks
    /// and link-local addresses are never fetched from.
    public var importsFromLoopback: Bool

    /// Creates limits: by default 4 hours of media, 100 million pixels, imports of up to 10 GiB
    /// from public addresses only.
    public init(mediaDuration: Double = 4 * 3600, imagePixels: Int = 100_000_000, importBytes: Int64 = 10 << 30, importsFromLoopback: Bool = false) {
        self.mediaDuration = mediaDuration
        self.imagePixels = imagePixels
        self.importBytes = importBytes
        self.importsFromLoopback = importsFromLoopback
    }
}
