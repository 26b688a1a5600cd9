import Basics

/// The ffmpeg filter that fits video frames into `width` x `height` the way a resize strategy
/// says (the hosted service's names), with even dimensions, as H.264 needs.
enum VideoGeometry {

    /// The `-vf` value (frames keep their size, made even, when neither dimension is given).
    static func filter(width: Int?, height: Int?, strategy: String) -> String {
        let even = "scale=trunc(iw/2)*2:trunc(ih/2)*2"
        switch (width, height) {
        case (nil, nil):
            return even
        case (let width?, nil):
            return "scale=\(width):-2,\(even)"
        case (nil, let height?):
            return "scale=-2:\(height),\(even)"
        case (let width?, let height?):
            switch strategy {
            case "stretch":
                return "scale=\(width):\(height),\(even),setsar=1"
            case "crop", "fillcrop":
                return "scale=\(width):\(height):force_original_aspect_ratio=increase,crop=\(width):\(height),\(even),setsar=1"
            case "pad":
                return "scale=\(width):\(height):force_original_aspect_ratio=decrease,pad=\(width):\(height):(ow-iw)/2:(oh-ih)/2:black,\(even),setsar=1"
            case "min_fit":
                return "scale=\(width):\(height):force_original_aspect_ratio=increase,\(even),setsar=1"
            default:
                return "scale=\(width):\(height):force_original_aspect_ratio=decrease,\(even),setsar=1"
            }
        }
    }
}
