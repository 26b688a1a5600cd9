import Basics
import Foundation

/// `--tls-cert` and `--tls-key`: a PEM certificate (chain) and its private key, the key readable
/// only by its owner.
enum TLSFiles {
    static let options: [CommandSpec.Option] = [
        .init(name: "tls-cert", valueName: "FILE", help: "Serve HTTPS with this PEM certificate (chain); needs --tls-key."),
        .init(name: "tls-key", valueName: "FILE", help: "The certificate's PEM private key, readable only by its owner."),
    ]

    /// `.success(nil)` for plain HTTP; the PEM texts; or an error message saying how to fix it.
    static func load(_ paths: TLSFilePaths) -> Result<(keyPEM: String, certificatePEM: String)?, TLSError> {
        switch (paths.certificate, paths.key) {
        case (nil, nil):
            return .success(nil)
        case (let certificate?, let key?):
            var info = stat()
            let keyData: Data
            do {
                guard stat(key, &info) == 0 else { throw FileError(path: key, operation: "read", code: errno) }
                keyData = try FileReading.read(key, limit: 1 << 20)
            } catch {
                return .failure(TLSError(message: "cannot read the TLS key: \(error)"))
            }
            guard info.st_mode & 0o077 == 0 else {
                return .failure(TLSError(message: "the TLS key '\(key)' may be read by others\n  hint: chmod 600 '\(key)'"))
            }
            let certificateData: Data
            do { certificateData = try FileReading.read(certificate, limit: 1 << 20) } catch {
                return .failure(TLSError(message: "cannot read the TLS certificate: \(error)"))
            }
            return .success((String(decoding: keyData, as: UTF8.self), String(decoding: certificateData, as: UTF8.self)))
        default:
            return .failure(TLSError(message: "--tls-cert and --tls-key go together"))
        }
    }

    struct TLSError: Error {
        var message: String
    }
}
