import Foundation

/// Stats files one after another from the folder of the last one, kept open: a plan's paths are
/// sorted, so most share the folder before them, and the kernel then looks up one name instead
/// of walking every component of the path again (the largest part of a stat's cost). One thread
/// owns a cursor; links are followed as `stat` follows them.
final class FolderCursor {
    private let base: Int32
    /// The open folder's path relative to `base`, ending in a NUL, and its descriptor.
    private var folder: [UInt8] = []
    private var descriptor: Int32 = -1

    /// A cursor for paths relative to the folder open as `base` (absolute paths ignore it).
    init(base: Int32) {
        self.base = base
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The identity of the file at `path`, following links; nil when it cannot be had.
    func identity(_ path: String) -> FileIdentity? {
        path.withCString { path in
            var info = stat()
            guard let slash = strrchr(path, Int32(UInt8(ascii: "/"))), slash != path else {
                return fstatat(base, path, &info, 0) == 0 ? FileIdentity(info) : nil
            }
            let length = path.distance(to: slash)
            if !isOpen(path, length) {
                open(path, length)
            }
            let found = descriptor >= 0 ? fstatat(descriptor, slash + 1, &info, 0) : fstatat(base, path, &info, 0)
            return found == 0 ? FileIdentity(info) : nil
        }
    }

    private func isOpen(_ path: UnsafePointer<CChar>, _ length: Int) -> Bool {
        folder.count == length + 1 && memcmp(folder, path, length) == 0
    }

    private func open(_ path: UnsafePointer<CChar>, _ length: Int) {
        if descriptor >= 0 { close(descriptor) }
        folder = Array(UnsafeRawBufferPointer(start: path, count: length)) + [0]
        // A folder that does not open is not tried again for the files after it: they are stat'ed by their whole path.
        descriptor = folder.withUnsafeBytes { name in
            name.baseAddress.map { openat(base, $0.assumingMemoryBound(to: CChar.self), O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1
        }
    }
}
