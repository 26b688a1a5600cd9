import Basics
import Crypto
import Foundation
import Spec

/// `/file/hash`: adds `meta.hash` (lowercase hex) with md5, sha1, sha256, sha384 or sha512.
struct FileHashRobot: Sendable {
    /// What the hosted robot offers that OpenSSL computes here (its b2 and sha224 are not run locally).
    let algorithm: String

    init(_ parameters: FileHash.Parameters) {
        algorithm = parameters.algorithm
    }

    func hash(_ file: AssemblyFile) throws(RobotError) -> AssemblyFile {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        let digest: [UInt8]
        do {
            digest = try StreamingDigest.file(file.path, algorithm: DigestAlgorithm(rawValue: algorithm) ?? .sha256, buffer: &buffer).digest
        } catch {
            throw RobotError(code: .internalCommandError, message: "cannot read '\(file.name)'")
        }
        var hashed = file
        hashed.id = AssemblyFile.newID()
        hashed.meta["hash"] = .string(Hex.encode(digest))
        hashed.meta["hash_algorithm"] = .string(algorithm)
        return hashed
    }
}

extension FileHash: LocalRobot {
    static func work(_ parameters: Parameters, robot: String) -> RobotWork { .eachFile(FileHashRobot(parameters)) }
}

extension FileHashRobot: FileRobot {
    func process(_ file: AssemblyFile, context: RobotContext) throws(RobotError) -> [AssemblyFile] { [try hash(file)] }
}
