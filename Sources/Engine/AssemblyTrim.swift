import Basics
import Foundation
import Wire

/// What stays of an Assembly kept for some of its results only: one Assembly batches several
/// sources, and when one of them is no longer an input, the results name the others' files
/// alone. The named result files stay, with the uploads they were made from; every other upload
/// (a hard link to, or a copy of, a source that is gone) and result goes, and the record forgets
/// them, so that its status, a replay and the data folder hold nothing of the sources that went.
/// The Assembly keeps its id: the results' URLs and the downloads made from them stay true.
struct AssemblyTrim: Sendable {
    /// The files kept in its `uploads` folder, by name.
    var uploads: Set<String> = []
    /// The result folders kept below `results/<id>/`.
    var results: Set<String> = []
    /// The tus uploads of the uploads that go.
    var tusUploads: [String] = []
    /// Whether the record changed.
    var changed = false

    /// Keeps of a folder with no record only the result folders `named`: no upload is known to be needed.
    init(recordless named: Set<String>) {
        results = named
    }

    /// Trims `record` to the result folders `named` (paths below `results/<id>/` in the data
    /// folder `dataDirectory`) and the uploads their results were made from.
    init(_ record: inout AssemblyRecord, named: Set<String>, dataDirectory: String) {
        let data = RealPath.normalized(dataDirectory)
        let resultsFolder = data + "/results/" + record.id + "/", uploadsFolder = data + "/assemblies/" + record.id + "/uploads/"
        // A result is kept by its folder; one stored elsewhere by the upload it was made from.
        func folder(_ file: AssemblyFile) -> String? {
            let path = RealPath.normalized(file.path)
            guard path.hasPrefix(resultsFolder) else { return nil }
            return FolderPath.of(String(path.dropFirst(resultsFolder.count)))
        }
        let inFolders = record.results.values.joined().filter { folder($0).map(named.contains) ?? false }
        let needed = Set(inFolders.map(\.originalID))
        let keptUploads = record.uploads.filter { needed.contains($0.id) }
        let gone = record.uploads.filter { !needed.contains($0.id) }
        uploads = Set(keptUploads.compactMap { file in
            let path = RealPath.normalized(file.path)
            return path.hasPrefix(uploadsFolder) ? String(path.dropFirst(uploadsFolder.count)) : nil
        })
        results = named
        var trimmed = record
        trimmed.uploads = keptUploads
        trimmed.results = record.results.mapValues { files in
            files.filter { file in folder(file).map(named.contains) ?? needed.contains(file.originalID) }
        }
        // A tus link goes with the upload it brought, unless a kept upload has the same field and name.
        func brought(_ link: AssemblyRecord.TusLink, _ file: AssemblyFile) -> Bool {
            link.uploadID == file.id || (link.fieldname == file.field && FileNames.safeComponent(link.filename) == file.name)
        }
        let goneLinks = record.tusLinks.filter { link in gone.contains { brought(link, $0) } && !keptUploads.contains { brought(link, $0) } }
        tusUploads = goneLinks.map(\.uploadID).filter { UploadStore.isValidID($0) }
        trimmed.tusLinks = record.tusLinks.filter { link in !goneLinks.contains(link) }
        trimmed.expectedTusUploads = max(0, record.expectedTusUploads - goneLinks.count)
        let goneIDs = Set(gone.map(\.id))
        trimmed.ignoredErrors = record.ignoredErrors?.filter { !goneIDs.contains($0.originalID ?? "") }
        trimmed.warnings = record.warnings?.filter { !goneIDs.contains($0.originalID ?? "") }
        changed = !gone.isEmpty || trimmed.results.values.joined().count != record.results.values.joined().count
        if changed { record = trimmed }
    }

    /// Removes from the data folder `dataDirectory` what of Assembly `id` is not kept (with
    /// `dryRun`, only counts): its uploads, then its results.
    func sweep(_ id: String, in dataDirectory: String, dryRun: Bool) -> (uploads: DataFolderSweep.Tally, results: DataFolderSweep.Tally) {
        let uploads = DataFolderSweep.sweep(["assemblies", id, "uploads"], below: dataDirectory, keeping: uploads, dryRun: dryRun)
        let results = DataFolderSweep.sweep(["results", id], below: dataDirectory, keeping: results, dryRun: dryRun)
        return (uploads, results)
    }
}
