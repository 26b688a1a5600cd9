import Basics
import Foundation

/// The files an Assembly reads in place, pinned for its steps: each is opened once and checked
/// to be the version handed over, then linked (that very inode, through its open descriptor)
/// into the Assembly's results folder, where the robots read it. A path swapped for a link to
/// another file, or another file renamed into its place, meanwhile, is never what a step reads.
/// Where a link cannot be made (another file system), the bytes are copied from the descriptor.
struct PinnedInputs {
    /// The uploads as the robots see them: files read in place at their pinned paths.
    let uploads: [AssemblyFile]
    private let pinned: [(file: AssemblyFile, identity: FileIdentity)]

    /// Pins every in-place upload of `uploads` below `folder` (the Assembly's results folder,
    /// opened without links below `root`); a file that is no longer the one handed over fails.
    init(_ uploads: [AssemblyFile], in folder: String, below root: String) throws(RobotError) {
        var seen: [AssemblyFile] = []
        var pinned: [(AssemblyFile, FileIdentity)] = []
        for var file in uploads {
            guard let identity = file.inPlace else { seen.append(file); continue }
            let descriptor = open(file.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { throw Self.changed(file, String(cString: strerror(errno))) }
            defer { close(descriptor) }
            let now: FileIdentity
            do { now = try FileIdentity.of(descriptor: descriptor, path: file.path) } catch { throw Self.changed(file, error.shortReason) }
            if let change = identity.change(to: now) { throw Self.changed(file, change) }
            let place = folder + "/inputs/" + file.id
            do throws(FileError) {
                let target = try LinkFreeFolder.open(place, below: root)
                if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", target.descriptor, file.name, AT_SYMLINK_FOLLOW) != 0 {
                    try target.placeCopy(of: "/proc/self/fd/\(descriptor)", as: file.name, followingLinks: true)
                }
            } catch {
                throw RobotError(code: .storeError, message: "'\(file.name)' could not be pinned for the Assembly's steps: \(error.shortReason)")
            }
            file.path = place + "/" + file.name
            seen.append(file)
            pinned.append((file, identity))
        }
        self.uploads = seen
        self.pinned = pinned
    }

    /// After the steps: fails when a pinned file was written to while they read it (the pinned
    /// link is the same inode; only its size and time can have moved).
    func checkUnchanged() throws(RobotError) {
        for (file, identity) in pinned {
            if let change = identity.change(at: file.path) { throw Self.changed(file, change) }
        }
    }

    private static func changed(_ file: AssemblyFile, _ change: String) -> RobotError {
        RobotError(code: .fileChanged, message: "'\(file.name)' changed after it was handed to the Assembly (\(change)); run again")
    }
}
