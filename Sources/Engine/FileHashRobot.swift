import COpenSSL
import Foundation
import PipelineCore

/// `/file/hash`: adds `meta.hash` (lowercase hex) with md5, sha1, sha256, sha384 or sha512.
struct FileHashRobot: Sendable {
    static let algorithms = ["md5", "sha1", "sha256", "sha384", "sha512"]
    let algorithm: String

    init(options: [String: JSONValue]) throws(RobotError) {
        algorithm = options["algorithm"]?.stringValue ?? "sha256"
        guard Self.algorithms.contains(algorithm) else {
            throw RobotError(code: "INVALID_STEP_PARAMETER", message: "algorithm '\(algorithm)' is not one of " + Self.algorithms.joined(separator: ", "))
        }
    }

    func hash(_ file: AssemblyFile) throws(RobotError) -> AssemblyFile {
        let digest: OpaquePointer? = switch algorithm {
        case "md5": EVP_md5()
        case "sha1": EVP_sha1()
        case "sha384": EVP_sha384()
        case "sha512": EVP_sha512()
        default: EVP_sha256()
        }
        guard let handle = FileHandle(forReadingAtPath: file.path), let context = EVP_MD_CTX_new() else {
            throw RobotError(code: "INTERNAL_COMMAND_ERROR", message: "cannot read '\(file.name)'")
        }
        defer {
            EVP_MD_CTX_free(context)
            try? handle.close()
        }
        EVP_DigestInit_ex(context, digest, nil)
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        var hashed = file
        hashed.id = AssemblyFile.newID()
        hashed.meta["hash"] = .string(Hex.encode(output.prefix(Int(length))))
        hashed.meta["hash_algorithm"] = .string(algorithm)
        return hashed
    }
}
