import Basics

/// Every robot the local engine runs, each declared once. Adding one is its declaration here,
/// its implementation in the engine and its tests (see docs/internals.md, "How to add a robot");
/// the catalog's local tables, the engine's dispatch and the step digests derive from this list.
public enum RobotRegistry {
    /// The declarations, one per robot (`EmulatedStore` runs every `/…/store` not declared on its own).
    public static let declarations: [any RobotDeclaration.Type] = [
        UploadHandle.self,
        ImageResize.self,
        ImageOptimize.self,
        FileFilter.self,
        FileHash.self,
        FileCompress.self,
        FileDecompress.self,
        DocumentThumbs.self,
        VideoEncode.self,
        VideoThumbs.self,
        AudioEncode.self,
        AudioWaveform.self,
        HTTPImport.self,
        MetaWrite.self,
        S3Store.self,
        S3Import.self,
        MinioImport.self,
        EmulatedStore.self,
    ]

    /// Each robot the local engine runs by name (a robot declared on its own wins over a family's).
    public static let byName: [String: any RobotDeclaration.Type] = {
        var robots: [String: any RobotDeclaration.Type] = [:]
        for declaration in declarations.reversed() {
            for name in declaration.names { robots[name] = declaration }
        }
        return robots
    }()

    /// The declaration of `robot`; nil when the local engine does not run it.
    public static func declaration(of robot: String) -> (any RobotDeclaration.Type)? { byName[robot] }
}

/// What every local robot takes besides its own options.
public struct CommonParameters: RobotParameters {
    public enum Option: String, RobotOption {
        case ignoreErrors = "ignore_errors"
    }

    /// The phases whose failures the step skips (`RobotCatalog.errorPhases`).
    public let ignoredPhases: Set<String>

    public init(from decoder: any Decoder) throws {
        guard let phases = RobotCatalog.ignoredPhases(try OptionReader<Option>(decoder).value(.ignoreErrors)) else {
            throw RobotOptionError(Option.ignoreErrors, "'ignore_errors' is true, false or a list of the phases meta, execute and import")
        }
        ignoredPhases = phases
    }

    /// The common parameters of a step of `robot`.
    public static func of(_ options: [String: JSONValue], robot: String) throws(RobotOptionError) -> CommonParameters {
        try StepOptionsDecoder.decode(CommonParameters.self, from: options, robot: robot)
    }
}
