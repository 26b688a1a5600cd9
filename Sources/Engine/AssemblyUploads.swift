import Wire
import Foundation
import Basics

/// Ties tus uploads to their Assembly through the metadata the SDKs send (`assembly_url` or
/// `assembly_id`), and starts the Assembly once every expected upload has arrived. Uploads past
/// the expected count are ignored, as the hosted service does.
struct AssemblyUploads: Sendable {
    let assemblies: any AssemblyRecords
    let uploads: UploadStore
    let executor: AssemblyExecutor

    func created(_ upload: TusUploadRecord) {
        guard let id = Self.assemblyID(upload.metadata) else { return }
        assemblies.update(id) { record in
            guard record.phase == .uploading else { return }
            let link = AssemblyRecord.TusLink(
                uploadID: upload.id, filename: upload.metadata["filename"] ?? "", fieldname: upload.metadata["fieldname"] ?? "file",
                size: upload.length, offset: upload.offset, finished: false)
            // A client whose creating request got no answer creates the upload again: the new one
            // replaces the unfinished one for the same field and file name.
            if let retried = record.tusLinks.firstIndex(where: { !$0.finished && $0.fieldname == link.fieldname && $0.filename == link.filename }) {
                record.tusLinks[retried] = link
            } else {
                guard record.tusLinks.count < record.expectedTusUploads else { return }
                record.tusLinks.append(link)
            }
        }
    }

    /// After a restart: ties again the uploads whose tie to a still uploading Assembly was made in
    /// memory only (the engine was killed before the Assembly's record was written behind), and
    /// counts those finished, so their client, told they were stored, is not kept waiting.
    func tieAgain(_ known: [TusUploadRecord]) {
        for upload in known.sorted(by: { ($0.created, $0.id) < ($1.created, $1.id) }) {
            guard let id = Self.assemblyID(upload.metadata), let record = assemblies.get(id), record.phase == .uploading else { continue }
            if !record.tusLinks.contains(where: { $0.uploadID == upload.id }) { created(upload) }
            if upload.isFinished { finished(upload) }
        }
    }

    /// Whether an upload with `metadata` is for an Assembly of this engine that is still
    /// uploading and expects it: a file it has room for, or a retry of one not finished.
    func accepts(_ metadata: [String: String]) -> Bool {
        guard let id = Self.assemblyID(metadata), let record = assemblies.get(id), record.phase == .uploading else { return false }
        let retry = record.tusLinks.contains { !$0.finished && $0.fieldname == (metadata["fieldname"] ?? "file") && $0.filename == (metadata["filename"] ?? "") }
        return retry || record.tusLinks.count < record.expectedTusUploads
    }

    func finished(_ upload: TusUploadRecord) {
        guard let id = Self.assemblyID(upload.metadata), let current = assemblies.get(id),
              current.tusLinks.contains(where: { $0.uploadID == upload.id && !$0.finished }) else { return }
        // An upload that ends after its Assembly was canceled (its client went on sending) is not kept.
        guard current.phase == .uploading else {
            uploads.delete(upload.id)
            return
        }
        let fileID = AssemblyFile.newID()
        let path: String
        if let sharing = uploads.sharing {
            // Finished where every engine fetches it from (`save` made the object).
            path = sharing.finishedPath(upload.id)
        } else if let kept = keep(upload, id: id, fileID: fileID) {
            path = kept
        } else {
            return
        }
        let name = FileNames.safeComponent(upload.metadata["filename"] ?? "file")
        // Only the type now: the PATCH that brought the last bytes is answered at once (ffprobe on
        // a video took 110 ms of it); the executor reads the facts before the steps run.
        let file = FileFacts.describe(
            id: fileID, name: name, field: upload.metadata["fieldname"] ?? "file", path: path, size: upload.offset,
            mime: upload.metadata["filetype"], isTus: true, facts: false)
        // The last upload and the start of execution are one step: a cancel lands before or after both.
        var action = AssemblyAction.none
        assemblies.update(id) { record in
            guard let index = record.tusLinks.firstIndex(where: { $0.uploadID == upload.id }), !record.tusLinks[index].finished else { return }
            record.tusLinks[index].finished = true
            record.tusLinks[index].offset = upload.offset
            record.uploads.append(file)
            if record.finishedTusUploads >= record.expectedTusUploads { action = record.apply(.uploadsComplete) }
        }
        if action == .execute { executor.execute(id) }
    }

    /// Whether an upload with `metadata` is for an Assembly of this engine that was canceled or
    /// failed: it takes no more bytes.
    func hasEnded(_ metadata: [String: String]) -> Bool {
        guard let id = Self.assemblyID(metadata), let record = assemblies.get(id) else { return false }
        switch record.phase {
        case .canceled, .failed: return true
        case .uploading, .executing, .completed: return false
        }
    }

    /// After a cancel: removes the bytes the Assembly's unfinished uploads received. Their records
    /// stay until a client asks again, which is then told why (`TusEndpoint`); one being written
    /// to now is not kept at its end (`finished`).
    func discard(_ record: AssemblyRecord) {
        for link in record.tusLinks where !link.finished && UploadStore.isValidID(link.uploadID) { unlink(uploads.dataPath(link.uploadID)) }
    }

    /// The Assembly id from `assembly_url` (its last path segment) or `assembly_id`.
    static func assemblyID(_ metadata: [String: String]) -> String? {
        if let url = metadata["assembly_url"], let last = URL(string: url)?.lastPathComponent, AssemblyStore.isValidID(last) {
            return last
        }
        if let id = metadata["assembly_id"], AssemblyStore.isValidID(id) { return id }
        return nil
    }

    /// Links (or copies) a finished upload's bytes into Assembly `id`'s folder: a hard link keeps
    /// them with the Assembly even if the tus upload is deleted later. The path; nil (the Assembly
    /// failed, saying why) when they cannot be kept.
    private func keep(_ upload: TusUploadRecord, id: String, fileID: String) -> String? {
        let folderPath = assemblies.directory + "/" + id + "/uploads"
        let path = folderPath + "/" + fileID
        do {
            // Opened without following links below the data folder, at any depth.
            let folder = try LinkFreeFolder.open(folderPath, below: FolderPath.of(assemblies.directory))
            guard uploads.holdsData(upload.id) else {
                throw FileError(path: uploads.dataPath(upload.id), operation: "keep", code: EINVAL, reason: "it is not a regular file")
            }
            if linkat(AT_FDCWD, uploads.dataPath(upload.id), folder.descriptor, fileID, 0) != 0 {
                _ = try folder.placeCopy(of: uploads.dataPath(upload.id), as: fileID)
            }
        } catch {
            // Without its bytes the Assembly can never run: it fails now, saying why, rather than later on a missing file.
            assemblies.update(id) { record in
                _ = record.apply(.uploadsFailed(code: .storageError, message: "upload \(upload.id) could not be kept with the Assembly: \(error)"))
            }
            return nil
        }
        return path
    }
}
