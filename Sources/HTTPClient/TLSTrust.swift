import Foundation
import Synchronization

/// Which certificate authorities HTTPS servers are checked against: the system's, plus every CA
/// named by `--ca-cert`, `CURL_CA_BUNDLE`, `SSL_CERT_FILE` (files) and `SSL_CERT_DIR` (a folder),
/// all together, as OpenSSL-based tools honour them. A variable that points at the system bundle
/// (as many images set `CURL_CA_BUNDLE`) can therefore not hide a private CA named by another.
public struct TLSTrust: Sendable, Hashable {
    /// PEM files of CA certificates, in the order named.
    public var caFiles: [String]
    /// A folder of hashed CA certificates (as `c_rehash` makes).
    public var caDirectory: String?

    /// Creates a trust setting; no files and no folder means the system's CAs alone.
    public init(caFiles: [String] = [], caDirectory: String? = nil) {
        self.caFiles = caFiles
        self.caDirectory = caDirectory
    }

    /// What the usual variables ask for: `CURL_CA_BUNDLE` and `SSL_CERT_FILE`; `SSL_CERT_DIR`.
    public static func fromEnvironment(_ environment: [String: String]) -> TLSTrust {
        let files = [environment["CURL_CA_BUNDLE"], environment["SSL_CERT_FILE"]].compactMap { $0 }.filter { !$0.isEmpty }
        let directory = environment["SSL_CERT_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        return TLSTrust(caFiles: files.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }, caDirectory: directory)
    }

    /// The named files' certificates as one PEM bundle, with the system's first; nil when no file is named.
    /// Files that cannot be read are left out (a request then fails on the certificate, naming the option).
    var pemBundle: Data? {
        // Naming only the system's bundle (as many images set CURL_CA_BUNDLE) adds nothing to libcurl's default.
        guard caFiles.contains(where: { $0 != Self.systemBundle }) else { return nil }
        let files = [Self.systemBundle] + caFiles
        var seen: Set<String> = []
        var pem = Data()
        for file in files where seen.insert(file).inserted {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            pem.append(data)
            pem.append(0x0A)
        }
        return pem
    }

    /// Debian's bundle of the system's CAs (`ca-certificates`).
    static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"
}

/// A `TLSTrust` with its files read once, for every request of one client.
struct TrustBundle: Sendable {
    /// The PEM certificates of every named file and the system's, or nil for the system's alone.
    let bundle: Data?
    /// The folder of hashed certificates.
    let caDirectory: String?

    init(_ trust: TLSTrust) {
        bundle = Self.read.withLock { read in
            if let known = read[trust] { return known }
            let bundle = trust.pemBundle
            read[trust] = bundle
            return bundle
        }
        caDirectory = trust.caDirectory
    }

    /// The bundles read so far: the files are read once per process, not once per client.
    private static let read = Mutex<[TLSTrust: Data?]>([:])
}
