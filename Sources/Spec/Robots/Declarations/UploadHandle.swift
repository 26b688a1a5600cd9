/// `/upload/handle`: the uploads themselves, as the step's results.
public enum UploadHandle: RobotDeclaration {
    public typealias Parameters = NoParameters
    public static let names = ["/upload/handle"]
    public static let inputs = RobotInputs.anyFile
    public static let digest = RobotDigest.perSourceFile
}
