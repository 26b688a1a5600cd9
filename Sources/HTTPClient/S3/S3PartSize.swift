/// How an object is cut into multipart-upload parts: every part but the last the same size (as
/// Cloudflare R2 requires), at least 5 MiB, at most 5 GiB, at most 10,000 parts, objects up to 5 TiB.
public struct S3PartSize: Sendable, Equatable {
    /// The smallest part S3 takes (all but the last).
    public static let minimum: Int64 = 5 << 20
    /// The largest part S3 takes.
    public static let maximum: Int64 = 5 << 30
    /// The most parts one object may have.
    public static let maximumParts: Int64 = 10_000
    /// The largest object S3 stores.
    public static let maximumObject: Int64 = 5 << 40

    /// The size of each part but the last.
    public let partSize: Int64
    /// How many parts the object takes.
    public let count: Int64

    /// The parts for an object of `size` bytes: `preferred` (clamped to at least 5 MiB) unless that
    /// would take more than 10,000 parts, then the smallest whole number of MiB that fits in
    /// 10,000; nil for an object larger than S3 stores.
    public init?(objectSize size: Int64, preferred: Int64 = S3PartSize.minimum) {
        guard size >= 0, size <= Self.maximumObject else { return nil }
        let mebibyte: Int64 = 1 << 20
        let fitting = (size + Self.maximumParts - 1) / Self.maximumParts
        let rounded = (fitting + mebibyte - 1) / mebibyte * mebibyte
        partSize = min(Self.maximum, max(preferred, Self.minimum, rounded))
        count = max(1, (size + partSize - 1) / partSize)
    }

    /// The byte range (offset, length) of part `number` (1-based) of an object of `size` bytes.
    public func range(ofPart number: Int64, objectSize size: Int64) -> (offset: Int64, length: Int64) {
        let offset = (number - 1) * partSize
        return (offset, min(partSize, size - offset))
    }
}
