internal import CCurl
import Crypto
import Basics
import Foundation
import Synchronization
import Wire

/// One request in flight: the libcurl easy handle and everything its callbacks touch. Callbacks
/// run on the loop thread only; `cancelled` is the one field other threads write.
final class Transfer: @unchecked Sendable {  // confined to the loop thread but `cancelled`, an Atomic
    let request: HTTPRequest
    let handle: UnsafeMutableRawPointer
    let progress: (@Sendable (Int64) -> Void)?
    let cancelled = Atomic<Bool>(false)
    var continuation: CheckedContinuation<HTTPResponse, any Error>?

    var status = 0
    var headers = HTTPHeaders()
    var body = Data()
    var overflowed = false
    var readFailure: Int32?
    var writeFailure: Int32?
    /// Why the policy refused the last address tried, if it did.
    var refusal: String?
    /// The file the body goes to (`request.responseFile`), and how many bytes it holds.
    var responseDescriptor: Int32 = -1
    var responseBytes = 0

    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    private var memoryBody: Data = Data()
    private var memoryOffset = 0
    private var fileDescriptor: Int32 = -1
    private var fileOffset: Int64 = 0
    private var fileRemaining: Int64 = 0
    /// The body bytes handed to libcurl so far.
    private(set) var bodyBytesRead: Int64 = 0
    /// The checksum of the body bytes read so far, for `request.checksumTrailer`.
    private var bodyDigest: StreamingDigest?

    init?(request: HTTPRequest, progress: (@Sendable (Int64) -> Void)?) {
        guard let handle = curl_easy_init() else { return nil }
        self.request = request
        self.handle = handle
        self.progress = progress
    }

    deinit {
        curl_slist_free_all(headerList)
        curl_easy_cleanup(handle)
        if fileDescriptor >= 0 { close(fileDescriptor) }
        if responseDescriptor >= 0 { close(responseDescriptor) }
    }

    /// Sets every option for the request; the error names a file that cannot be opened.
    func configure(trust: TrustBundle) throws(HTTPError) {
        // Credentials go only where they cannot be read on the way: checked on the host libcurl will connect to.
        if request.headers.contains(where: { $0.name.lowercased() == "authorization" }), !CurlURL.allowsSecrets(request.url) {
            throw HTTPError(.insecureCredentials, request: request.summary)
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        try check(ccurl_setopt_string(handle, CURLOPT_URL, request.url), "CURLOPT_URL")
        try check(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try check(ccurl_setopt_pointer(handle, CURLOPT_PRIVATE, context), "CURLOPT_PRIVATE")
        try check(errorBuffer.withUnsafeMutableBufferPointer { ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, $0.baseAddress) }, "CURLOPT_ERRORBUFFER")
        try check(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(request.timeouts.connect.inMilliseconds)), "CURLOPT_CONNECTTIMEOUT_MS")
        try check(ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, request.timeouts.stallBytesPerSecond), "CURLOPT_LOW_SPEED_LIMIT")
        try check(ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(request.timeouts.stallTime.inMilliseconds) / 1000)), "CURLOPT_LOW_SPEED_TIME")
        if let total = request.timeouts.total { try check(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(total.inMilliseconds)), "CURLOPT_TIMEOUT_MS") }
        // Redirects are followed by `HTTPClient.send`, which decides what goes along.
        try check(ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0), "CURLOPT_FOLLOWLOCATION")
        // Whatever a URL says, nothing but HTTP(S) is spoken (no file://, no gopher://).
        try check(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
        if request.addressPolicy != nil {
            try check(ccurl_setopt_opensocket_callback(handle, transferOpenSocketCallback), "CURLOPT_OPENSOCKETFUNCTION")
            try check(ccurl_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, context), "CURLOPT_OPENSOCKETDATA")
            try check(ccurl_setopt_string(handle, CURLOPT_NOPROXY, "*"), "CURLOPT_NOPROXY")
        }
        if let given = request.responseDescriptor {
            responseDescriptor = fcntl(given, F_DUPFD_CLOEXEC, 0)
            guard responseDescriptor >= 0 else { throw HTTPError(.unwritableFile(path: "the response file", code: errno), request: request.summary) }
            try check(ccurl_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxResponseBytes)), "CURLOPT_MAXFILESIZE_LARGE")
        } else if let path = request.responseFile {
            responseDescriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard responseDescriptor >= 0 else { throw HTTPError(.unwritableFile(path: path, code: errno), request: request.summary) }
            // A server that announces a larger body is refused before it is read.
            try check(ccurl_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxResponseBytes)), "CURLOPT_MAXFILESIZE_LARGE")
        }
        try check(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1), "CURLOPT_SSL_VERIFYPEER")
        try check(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2), "CURLOPT_SSL_VERIFYHOST")
        if let bundle = trust.bundle {
            try check(bundle.withUnsafeBytes { ccurl_setopt_blob(handle, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) }, "CURLOPT_CAINFO_BLOB")
        }
        if let directory = trust.caDirectory { try check(ccurl_setopt_string(handle, CURLOPT_CAPATH, directory), "CURLOPT_CAPATH") }
        try check(ccurl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, transferWriteCallback), "CURLOPT_WRITEFUNCTION")
        try check(ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context), "CURLOPT_WRITEDATA")
        try check(ccurl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, transferHeaderCallback), "CURLOPT_HEADERFUNCTION")
        try check(ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, context), "CURLOPT_HEADERDATA")
        try check(ccurl_setopt_progress_callback(handle, transferProgressCallback), "CURLOPT_XFERINFOFUNCTION")
        try check(ccurl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context), "CURLOPT_XFERINFODATA")
        try check(ccurl_setopt_long(handle, CURLOPT_NOPROGRESS, 0), "CURLOPT_NOPROGRESS")
        for header in request.headers {
            headerList = curl_slist_append(headerList, "\(header.name): \(header.value)")
        }
        // libcurl asks before sending a body larger than 1 KiB (Expect: 100-continue), which costs
        // a round trip; for a body this small, sending it at once costs less even when refused.
        // Larger bodies keep asking: a proxy's 413 then comes before the body is sent.
        // Not for a request libcurl signs (AWS SigV4): 7.88 would sign the empty header it never sends.
        if request.body.length > 0, request.body.length <= Self.sendWithoutAsking, request.awsSigning == nil,
           !request.headers.contains(where: { $0.name.lowercased() == "expect" }) {
            headerList = curl_slist_append(headerList, "Expect:")
        }
        if let trailer = request.digestTrailer {
            bodyDigest = StreamingDigest(trailer.algorithm)
            headerList = curl_slist_append(headerList, "Trailer: \(trailer.field)")
            try check(ccurl_setopt_trailer_callback(handle, transferTrailerCallback), "CURLOPT_TRAILERFUNCTION")
            try check(ccurl_setopt_pointer(handle, CURLOPT_TRAILERDATA, context), "CURLOPT_TRAILERDATA")
        }
        try check(ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
        if let signing = request.awsSigning {
            // libcurl signs with the key as user name and the secret as password; nothing else sees them.
            try check(ccurl_setopt_string(handle, CURLOPT_AWS_SIGV4, signing.provider), "CURLOPT_AWS_SIGV4")
            try check(ccurl_setopt_string(handle, CURLOPT_USERNAME, signing.credentials.key), "CURLOPT_USERNAME")
            try check(ccurl_setopt_string(handle, CURLOPT_PASSWORD, signing.credentials.secret), "CURLOPT_PASSWORD")
            // A large body still asks first (an S3 refusal then costs no upload), but some S3-compatible
            // servers never answer `100 Continue`: wait a quarter second for it, not libcurl's whole second.
            try check(ccurl_setopt_long(handle, CURLOPT_EXPECT_100_TIMEOUT_MS, 250), "CURLOPT_EXPECT_100_TIMEOUT_MS")
        }
        try configureMethodAndBody(context: context)
    }

    /// The largest body sent without `Expect: 100-continue`: nginx's default body limit, so a
    /// proxy as it comes never refuses a body sent unasked.
    static let sendWithoutAsking: Int64 = 1 << 20

    private func configureMethodAndBody(context: UnsafeMutableRawPointer) throws(HTTPError) {
        switch request.body {
        case .none: break
        case .data(let data): memoryBody = data
        case .file(let path, let offset, let length):
            fileDescriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard fileDescriptor >= 0 else { throw HTTPError(.unreadableFile(path: path, code: errno), request: request.summary) }
            _ = posix_fadvise(fileDescriptor, off_t(offset), off_t(length), POSIX_FADV_SEQUENTIAL)
            fileOffset = offset
            fileRemaining = length
        }
        switch request.method {
        case "GET":
            try check(ccurl_setopt_long(handle, CURLOPT_HTTPGET, 1), "CURLOPT_HTTPGET")
        case "HEAD":
            try check(ccurl_setopt_long(handle, CURLOPT_NOBODY, 1), "CURLOPT_NOBODY")
        case "POST", "PATCH", "PUT":
            // Streamed with a known length: Content-Length; chunked encoding only to carry a trailer.
            try check(ccurl_setopt_long(handle, CURLOPT_UPLOAD, 1), "CURLOPT_UPLOAD")
            // Larger reads from the file mean fewer system calls per gigabyte.
            try check(ccurl_setopt_long(handle, CURLOPT_UPLOAD_BUFFERSIZE, 1 << 20), "CURLOPT_UPLOAD_BUFFERSIZE")
            try check(ccurl_setopt_off(handle, CURLOPT_INFILESIZE_LARGE, request.digestTrailer == nil ? curl_off_t(request.body.length) : -1), "CURLOPT_INFILESIZE_LARGE")
            try check(ccurl_setopt_data_callback(handle, CURLOPT_READFUNCTION, transferReadCallback), "CURLOPT_READFUNCTION")
            try check(ccurl_setopt_pointer(handle, CURLOPT_READDATA, context), "CURLOPT_READDATA")
            try check(ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method), "CURLOPT_CUSTOMREQUEST")
        default:
            try check(ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method), "CURLOPT_CUSTOMREQUEST")
        }
    }

    /// Throws when libcurl refused an option: a request it would send without the option (no
    /// protocol limit, no TLS check, no timeout) is not sent at all.
    private func check(_ code: CURLcode, _ option: StaticString) throws(HTTPError) {
        guard code != CURLE_OK else { return }
        throw HTTPError(.setup(option: "\(option)", message: String(cString: curl_easy_strerror(code))), request: request.summary)
    }

    /// The digest trailer field of the body read; once, when the body has been sent.
    var digestTrailerField: String? {
        // A digest OpenSSL could not finish sends no trailer: the transfer is aborted.
        guard let trailer = request.digestTrailer, let digest = bodyDigest?.finish() else { return nil }
        return "\(trailer.field): \(trailer.value(digest))"
    }

    /// Copies up to `capacity` body bytes into `buffer`; `nil` when the file cannot be read.
    func readBody(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        if fileDescriptor >= 0 {
            let wanted = Int(min(Int64(capacity), fileRemaining))
            guard wanted > 0 else { return 0 }
            let count = SystemCall.uninterrupted { pread(fileDescriptor, buffer, wanted, off_t(fileOffset)) }
            guard count > 0 else {
                readFailure = count < 0 ? errno : EIO
                return nil
            }
            bodyDigest?.update(UnsafeRawBufferPointer(start: buffer, count: count))
            bodyBytesRead += Int64(count)
            fileOffset += Int64(count)
            fileRemaining -= Int64(count)
            return count
        }
        let count = min(capacity, memoryBody.count - memoryOffset)
        guard count > 0 else { return 0 }
        memoryBody.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            buffer.copyMemory(from: base + memoryOffset, byteCount: count)
        }
        bodyDigest?.update(UnsafeRawBufferPointer(start: buffer, count: count))
        bodyBytesRead += Int64(count)
        memoryOffset += count
        return count
    }

    /// The outcome once libcurl reports the transfer done.
    func result(code: CURLcode) -> Result<HTTPResponse, HTTPError> {
        if code == CURLE_OK { return .success(HTTPResponse(status: status, headers: headers, body: body)) }
        if cancelled.load(ordering: .relaxed) { return .failure(HTTPError(.cancelled, request: request.summary)) }
        if let refusal, code == CURLE_COULDNT_CONNECT { return .failure(HTTPError(.addressRefused(reason: refusal), request: request.summary)) }
        if let writeFailure, responseDescriptor >= 0 {
            return .failure(HTTPError(.unwritableFile(path: request.responseFile ?? "the response file", code: writeFailure), request: request.summary))
        }
        if overflowed || code == CURLE_FILESIZE_EXCEEDED { return .failure(HTTPError(.responseTooLarge(limit: request.maxResponseBytes), request: request.summary)) }
        if let readFailure, case .file(let path, _, _) = request.body {
            return .failure(HTTPError(.unreadableFile(path: path, code: readFailure), request: request.summary))
        }
        let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        if code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE {
            message = "the server's certificate is not trusted (\(message)); pass --ca-cert FILE with the CA that signed it"
        }
        return .failure(HTTPError(.transport(code: Int(code.rawValue), message: message), request: request.summary))
    }

    /// Appends body bytes to the response file; false (with `writeFailure` set) when it cannot.
    func writeResponse(_ buffer: UnsafeRawPointer, count: Int) -> Bool {
        if let failure = SystemCall.writeAll(UnsafeRawBufferPointer(start: buffer, count: count), to: responseDescriptor) {
            writeFailure = failure
            return false
        }
        responseBytes += count
        return true
    }

    /// Empties the response file when a new response starts (after an interim or redirect).
    func restartResponseFile() {
        guard responseDescriptor >= 0, responseBytes > 0 else { return }
        _ = ftruncate(responseDescriptor, 0)
        _ = lseek(responseDescriptor, 0, SEEK_SET)
        responseBytes = 0
    }

    /// Whether the request's policy lets libcurl connect to `address`; remembers why not.
    func allowsConnection(to address: NetworkAddress?) -> Bool {
        guard let policy = request.addressPolicy else { return true }
        guard let address else {
            refusal = "not an IPv4 or IPv6 address"
            return false
        }
        if let reason = policy.refusal(for: address) {
            refusal = reason
            return false
        }
        return true
    }
}

// libcurl callbacks: plain C functions that find their transfer through the context pointer.

private let transferWriteCallback: ccurl_data_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let bytes = size * count
    guard transfer.responseBytes + transfer.body.count + bytes <= transfer.request.maxResponseBytes else {
        transfer.overflowed = true
        return 0
    }
    if transfer.responseDescriptor >= 0 { return transfer.writeResponse(buffer, count: bytes) ? bytes : 0 }
    transfer.body.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: bytes)
    return bytes
}

private let transferHeaderCallback: ccurl_data_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let bytes = size * count
    var line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: bytes), as: UTF8.self)
    while line.hasSuffix("\n") || line.hasSuffix("\r") { line.removeLast() }
    if line.hasPrefix("HTTP/") {
        // A new status line: an interim 1xx or a redirect came before; keep only the last response.
        let parts = line.split(separator: " ")
        transfer.status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        transfer.headers = HTTPHeaders()
        transfer.body = Data()
        transfer.restartResponseFile()
    } else {
        transfer.headers.parse(line: line)
    }
    return bytes
}

private let transferReadCallback: ccurl_data_callback = { buffer, size, count, context in
    guard let buffer, let context else { return ccurl_read_abort() }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.readBody(into: buffer, capacity: size * count) ?? ccurl_read_abort()
}

/// Called once the body has been sent: the digest trailer of everything read.
private let transferTrailerCallback: ccurl_trailer_callback = { list, context in
    guard let list, let context else { return Int32(CURL_TRAILERFUNC_ABORT) }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    guard let trailer = transfer.digestTrailerField else { return Int32(CURL_TRAILERFUNC_ABORT) }
    list.pointee = curl_slist_append(list.pointee, trailer)
    return Int32(CURL_TRAILERFUNC_OK)
}

private let transferOpenSocketCallback: ccurl_opensocket_callback = { context, purpose, address in
    guard let context, let address, purpose == CURLSOCKTYPE_IPCXN else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let family = address.pointee.family
    // `addr` is declared as a `sockaddr` but holds the whole IPv6 address: read it in place.
    let offset = MemoryLayout<curl_sockaddr>.offset(of: \.addr) ?? 0
    let target = NetworkAddress(socketAddress: UnsafeRawPointer(address) + offset, family: family)
    guard transfer.allowsConnection(to: target) else { return CURL_SOCKET_BAD }
    return socket(family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
}

private let transferProgressCallback: ccurl_progress_callback = { context, _, _, _, uploaded in
    guard let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    if transfer.cancelled.load(ordering: .relaxed) { return 1 }
    // libcurl counts a chunked body's framing too: never report more than the body bytes read.
    transfer.progress?(min(Int64(uploaded), transfer.bodyBytesRead))
    return 0
}
