import APIClients
import Basics
import Crypto
import Foundation

/// Uploads for a caller in the engine's process: each file is opened here, checked to be inside
/// the project (`confinedTo`), and handed to its Assembly, named by id, as that open file
/// (`AssemblyUploads.handOver`): no bytes sent, none copied, no URL read.
struct InProcessUploads: UploadService {
    let links: AssemblyUploads

    func upload(
        _ files: [UploadFile], to url: String, for assembly: AssemblyReference, options: UploadOptions,
        progress: @escaping @Sendable (UploadProgress) -> Void
    ) async throws -> [Result<UploadResult, any Error>] {
        let links = links
        let id = try InProcessAssemblies.id(of: assembly)
        let confined = options.confinedTo.map { RealPath.of($0) ?? RealPath.normalized($0) }
        // On the pool: each file is opened, linked (copied across file systems) and read for its type.
        return try await BlockingPool.shared.run {
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            return files.enumerated().map { index, file in
                let name = file.metadata["filename"] ?? (file.path as NSString).lastPathComponent
                // Opened here, once: what is checked, confined and handed over is this open file, whatever its path leads to later.
                let descriptor = open(file.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
                guard descriptor >= 0 else {
                    return .failure(APIRefusal.fileUnreadable(name, String(cString: strerror(errno))).failure)
                }
                defer { close(descriptor) }
                if let confined {
                    guard let real = RealPath.of(descriptor: descriptor), RealPath.isInside(real, confined) else {
                        return .failure(APIRefusal.fileUnreadable(name, "it is not a file of the project (a link to elsewhere?)").failure)
                    }
                }
                // The very file handed over holds the planned bytes: one put in its place since the
                // plan (renamed over it, its time set back) is refused, never processed as planned.
                if let known = file.known, let change = Self.change(of: descriptor, name: name, from: known.sha256, buffer: &buffer) {
                    return .failure(APIRefusal.fileChanged(name, change).failure)
                }
                switch links.handOver(descriptor, name: name, field: file.metadata["fieldname"] ?? "file", type: file.metadata["filetype"], to: id) {
                case .success(let size):
                    progress(UploadProgress(index: index, confirmed: size, inFlight: 0, total: size))
                    return .success(UploadResult(index: index, path: file.path, url: AssemblyStatus.fileURL(file.path), size: size, resumedFrom: 0))
                case .failure(let refusal):
                    return .failure(refusal.failure)
                }
            }
        }
    }

    /// Why the open file is not the planned one (its SHA-256 differs, or it cannot be read); nil when it is.
    private static func change(of descriptor: Int32, name: String, from sha256: String, buffer: inout [UInt8]) -> String? {
        do {
            let read = try StreamingDigest.file(opened: descriptor, path: name, algorithm: .sha256, buffer: &buffer)
            return Hex.encode(read.digest) == sha256 ? nil : "its content is no longer the one planned"
        } catch {
            return "it cannot be read (\(error))"
        }
    }
}
