import Basics
import Foundation
import Wire

extension AssemblyUploads {
    /// Hands the open file `descriptor` to Assembly `id` as its upload `field`, for a caller in
    /// the engine's process: that very file (its inode) is linked into the Assembly's uploads
    /// folder, with no bytes copied (copied only across file systems), so what its path leads to
    /// later does not matter; it is checked unwritten before and after the steps, and copied when
    /// a step hands it on as a result (`AssemblyExecutor`). A file handed over again (a resumed
    /// run) or past the expected count is taken as the service takes tus uploads: once, and only
    /// those expected. Gives the size handed over.
    func handOver(_ descriptor: Int32, name: String, field: String, type: String?, to id: String) -> Result<Int64, APIRefusal> {
        guard let record = assemblies.get(id) else { return .failure(.assemblyNotFound(id)) }
        let identity: FileIdentity
        do { identity = try FileIdentity.of(descriptor: descriptor, path: name) } catch { return .failure(.fileUnreadable(name, error.shortReason)) }
        guard record.phase == .uploading else {
            return record.isTerminal ? .failure(.assemblyEnded(id)) : .success(identity.size)
        }
        let filename = FileNames.safeComponent(name)
        if record.tusLinks.contains(where: { $0.fieldname == field && $0.filename == filename }) || record.tusLinks.count >= record.expectedTusUploads {
            return .success(identity.size)
        }
        let fileID = AssemblyFile.newID()
        let folderPath = assemblies.directory + "/" + id + "/uploads"
        do throws(FileError) {
            // Opened without following links below the data folder, at any depth.
            let folder = try LinkFreeFolder.open(folderPath, below: FolderPath.of(assemblies.directory))
            if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", folder.descriptor, fileID, AT_SYMLINK_FOLLOW) != 0 {
                try folder.placeCopy(of: "/proc/self/fd/\(descriptor)", as: fileID, followingLinks: true)
            }
        } catch {
            return .failure(.uploadNotKept(id, error.shortReason))
        }
        var file = FileFacts.describe(
            id: fileID, name: filename, field: field, path: folderPath + "/" + fileID, size: identity.size, mime: type, isTus: true, facts: false)
        // As linked: the link moved its change time and count. Later checks compare with this.
        // Not to be had now: the identity checked at the hand-over, which a later change still differs from.
        file.inPlace = (try? FileIdentity.of(descriptor: descriptor, path: name)).flatMap { $0.change(to: identity) == nil ? $0 : nil } ?? identity  // see above
        var action = AssemblyAction.none
        var ended = false
        assemblies.update(id) { record in
            guard record.phase == .uploading else { ended = record.isTerminal; return }
            // Checked again under the lock: another hand-over of the same file, or the last one expected, may have come meanwhile.
            guard !record.tusLinks.contains(where: { $0.fieldname == field && $0.filename == filename }),
                  record.tusLinks.count < record.expectedTusUploads else { return }
            record.tusLinks.append(AssemblyRecord.TusLink(
                uploadID: fileID, filename: filename, fieldname: field, size: identity.size, offset: identity.size, finished: true))
            record.uploads.append(file)
            if record.finishedTusUploads >= record.expectedTusUploads { action = record.apply(.uploadsComplete) }
        }
        if ended { return .failure(.assemblyEnded(id)) }
        if action == .execute { executor.execute(id) }
        return .success(identity.size)
    }
}
