import CLinux
import Foundation

/// A Unix `SOCK_SEQPACKET` socket: each message arrives whole, and one may carry an open file
/// descriptor. This is how a client on the same machine hands the local engine a file to read
/// instead of sending its bytes over HTTP.
public final class MessageSocket: Sendable {
    /// The socket's descriptor, closed with the value.
    public let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The longest path a Unix socket address holds (`sun_path` less its terminating zero).
    public static let maxPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Connects to the socket at `path` without waiting; `nil` when nothing listens there, its
    /// listener takes no more connections now, or the path is too long.
    public static func connect(_ path: String) -> MessageSocket? {
        let made = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard made >= 0 else { return nil }
        let connected = MessageSocket(descriptor: made)
        let status = withAddress(path) { address, length in pipeline_connect_at_once(made, address, length) }
        return status == 0 ? connected : nil
    }

    /// Listens at `path`, readable and writable by this user only. A socket file left there (by an
    /// engine that was killed) is replaced; anything else there is an error.
    public static func listen(_ path: String) throws(FileError) -> MessageSocket {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw FileError(path: path, operation: "listen", code: EEXIST) }
            unlink(path)
        }
        let made = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard made >= 0 else { throw FileError(path: path, operation: "socket", code: errno) }
        let listening = MessageSocket(descriptor: made)
        // Made with no permission for others from the start, not narrowed after binding.
        let mask = umask(0o177)
        let bound = withAddress(path) { address, length in bind(made, address, length) }
        let code = errno
        umask(mask)
        guard bound == 0 else { throw FileError(path: path, operation: "bind", code: bound == -2 ? ENAMETOOLONG : code) }
        guard Glibc.listen(made, 64) == 0 else { throw FileError(path: path, operation: "listen", code: errno) }
        return listening
    }

    /// The next connection; `nil` once the socket is shut down.
    public func accept() -> MessageSocket? {
        let accepted = pipeline_accept(descriptor)
        return accepted >= 0 ? MessageSocket(descriptor: accepted) : nil
    }

    /// The user id of the process at the other end; `nil` when the kernel does not say.
    public var peerUserID: uid_t? {
        var uid: uid_t = 0
        return pipeline_peer_uid(descriptor, &uid) == 0 ? uid : nil
    }

    /// Whether the other end has closed its side (a client killed mid-request), without waiting.
    public var peerIsGone: Bool { pipeline_peer_gone(descriptor) != 0 }

    /// Ends every wait on the socket (an `accept` returns `nil`, a `receive` the close).
    public func shutDown() {
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Sends `text` as one message, with `file` riding along when given; whether it went.
    @discardableResult
    public func send(_ text: String, file: Int32 = -1) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { pipeline_send_with_descriptor(descriptor, $0.baseAddress, $0.count, file) } == bytes.count
    }

    /// One message of at most `capacity` bytes, with the descriptor that came with it (-1 when
    /// none; the caller closes it). `nil` when the peer closed, `waiting` passed without a message,
    /// or the message was too long or not UTF-8.
    public func receive(capacity: Int = 4096, waiting: Duration) -> (text: String, file: Int32)? {
        let (seconds, attoseconds) = waiting.components
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var bytes = [UInt8](repeating: 0, count: capacity)
        var file: Int32 = -1
        let count = bytes.withUnsafeMutableBytes { pipeline_receive_with_descriptor(descriptor, $0.baseAddress, $0.count, &file) }
        guard count > 0, let text = String(validating: bytes[..<count], as: UTF8.self) else {
            if file >= 0 { close(file) }
            return nil
        }
        return (text, file)
    }

    /// Calls `body` with `path` as a socket address; -2 when the path does not fit.
    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maxPathLength, !bytes.contains(0) else { return -2 }
        withUnsafeMutableBytes(of: &address.sun_path) { target in
            target.copyBytes(from: bytes)
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
