import Foundation

/// One thing a team does to its project between runs, with every choice already made, so a
/// sequence replays exactly (and can be shortened by dropping actions).
enum ModelAction: Equatable, CustomStringConvertible {
    /// A new photo at `path`.
    case add(String, ModelImage)
    /// A byte copy of `from` at `to`.
    case copy(String, to: String)
    /// `from` renamed or moved to `to`.
    case move(String, to: String)
    /// The file removed.
    case delete(String)
    /// New bytes under the same name.
    case rewrite(String, ModelImage)
    /// The other Unicode normalization of `path`'s name, as a different photo.
    case twin(String, ModelImage)
    /// The resize step's width changed.
    case width(Int)
    /// `ignore_errors` set or removed on the resize step.
    case ignoreErrors(Bool)
    /// The job's `download:` folder changed.
    case download(String)
    /// A run against an endpoint nothing listens on.
    case deadEndpoint
    /// A run canceled after `milliseconds`.
    case interrupt(afterLines: Int)

    var description: String {
        switch self {
        case .add(let path, let image): "add \(Self.shown(path)) \(image)"
        case .copy(let from, let to): "cp \(Self.shown(from)) \(Self.shown(to))"
        case .move(let from, let to): "mv \(Self.shown(from)) \(Self.shown(to))"
        case .delete(let path): "rm \(Self.shown(path))"
        case .rewrite(let path, let image): "rewrite \(Self.shown(path)) \(image)"
        case .twin(let path, let image): "twin of \(Self.shown(path)) \(image)"
        case .width(let width): "width: \(width)"
        case .ignoreErrors(let on): "ignore_errors: \(on)"
        case .download(let folder): "download: \(folder)"
        case .deadEndpoint: "run --endpoint http://127.0.0.1:1"
        case .interrupt(let lines): "run, canceled once it said \(lines) lines"
        }
    }

    /// A path with its non-ASCII scalars spelled out, so NFC and NFD read differently.
    static func shown(_ path: String) -> String {
        path.unicodeScalars.map { $0.isASCII ? String($0) : String(format: "\\u{%04X}", $0.value) }.joined()
    }
}

/// A real PNG of its own size (two photos of one size are the same bytes).
struct ModelImage: Equatable, CustomStringConvertible {
    var width: Int
    var height: Int

    var description: String { "\(width)x\(height)" }
}

/// SplitMix64: the same seed gives the same sequence on every machine.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
