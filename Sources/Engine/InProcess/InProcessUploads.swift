import APIClients
import Basics
import Foundation

/// Uploads for a caller in the engine's process: each file is handed to its Assembly where it
/// is (`AssemblyUploads.handOver`), with no bytes sent and none copied unless the Assembly keeps them.
struct InProcessUploads: UploadService {
    let links: AssemblyUploads

    func upload(
        _ files: [UploadFile], to url: String, options: UploadOptions, progress: @escaping @Sendable (UploadProgress) -> Void
    ) async throws -> [Result<UploadResult, any Error>] {
        let links = links
        // On the pool: a file kept with its Assembly is copied, and every one is read for its type.
        return try await BlockingPool.shared.run {
            files.enumerated().map { index, file in
                let name = file.metadata["filename"] ?? (file.path as NSString).lastPathComponent
                let id: String
                do throws(AssemblyClient.Failure) { id = try InProcessAssemblies.id(in: file.metadata["assembly_url"] ?? "") } catch {
                    return .failure(AssemblyClient.Failure(code: error.code, message: "'\(name)' names no Assembly of this engine (assembly_url)"))
                }
                switch links.handOver(path: file.path, name: name, field: file.metadata["fieldname"] ?? "file", type: file.metadata["filetype"], to: id) {
                case .success(let size):
                    progress(UploadProgress(index: index, confirmed: size, inFlight: 0, total: size))
                    return .success(UploadResult(index: index, path: file.path, url: AssemblyStatus.fileURL(file.path), size: size, resumedFrom: 0))
                case .failure(let refusal):
                    return .failure(refusal.failure)
                }
            }
        }
    }
}
