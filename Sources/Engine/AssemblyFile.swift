import Basics
import Crypto
import Foundation
import Wire

/// A file in an Assembly: an upload or a step's result, with the fields the status reports.
struct AssemblyFile: Codable, Sendable, Equatable {
    /// 32 lowercase hex characters.
    var id: String
    /// The file name (never used as a path as given).
    var name: String
    /// The form field or tus `fieldname` it came from.
    var field: String
    /// The upload it derives from (itself for uploads).
    var originalID: String
    /// The name of that upload.
    var originalName: String
    /// Where the bytes are on disk.
    var path: String
    /// The size in bytes.
    var size: Int64
    /// The media type.
    var mime: String
    /// Image width and height, hashes and similar facts.
    var meta: [String: JSONValue]
    /// Whether it came in over tus.
    var isTusFile: Bool
    /// The MD5 of a result's bytes (lowercase hex), reported as `md5hash`; nil for uploads.
    var md5: String?
    /// Where an export step put it (a `file://` URL on the local engine), reported as its URL.
    var exportURL: String?
    /// An export's `ssl_url`, when it differs from `exportURL` (a real bucket's https URL).
    var exportSSLURL: String?
    /// A real export's pre-signed URLs (`sign_urls_for`), reported as `signed_url` and `signed_ssl_url`.
    var signedURL: String?
    var signedSSLURL: String?
    /// For an upload read where it is (handed over in process, not copied): the identity its
    /// file had then, checked before every use. Such a file is never served, and is trusted only
    /// by the process that was handed it.
    var inPlace: FileIdentity?

    /// An image's width and height as the engine read them from its header when it stored the
    /// file (never from a request); nil for other files.
    var imageSize: (width: Int32, height: Int32)? {
        guard mime.hasPrefix("image/"), let width = meta["width"]?.intValue.flatMap(Int32.init(exactly:)),
              let height = meta["height"]?.intValue.flatMap(Int32.init(exactly:)), width > 0, height > 0 else { return nil }
        return (width, height)
    }

    var basename: String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// The name of the upload it derives from, without its extension.
    var originalBasename: String { (originalName as NSString).deletingPathExtension }

    var ext: String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    /// The status JSON for this file; `url` is where the engine serves it, if it does.
    func document(url: String?) -> AssemblyStatusDocument.File {
        var document = AssemblyStatusDocument.File(id: id, name: name, size: size, mime: mime)
        (document.basename, document.ext, document.type) = (basename, ext, mime.split(separator: "/").first.map(String.init) ?? "")
        (document.field, document.originalIDs, document.originalName) = (field, [originalID], originalName)
        (document.originalBasename, document.isTusFile, document.meta, document.md5hash) = (originalBasename, isTusFile, .object(meta), md5)
        if let url = exportURL ?? url { (document.url, document.sslURL) = (url, exportSSLURL ?? url) }
        (document.signedURL, document.signedSSLURL) = (signedURL, signedSSLURL)
        return document
    }

    /// A fresh file id.
    static func newID() -> String {
        RandomID.hex32()
    }
}
