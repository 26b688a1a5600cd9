import Basics
import Crypto
import Foundation
import Wire

/// The form an Assembly's end is announced with, as the service sends it: `multipart/form-data`
/// with `transloadit` (the status JSON, trimmed as the Assembly's `notification_payload` asks)
/// and, when the engine has an Auth Secret, `signature` (`NotificationSignature`).
struct NotificationForm {
    /// The status JSON sent.
    let payload: String
    let body: Data
    let contentType: String

    /// The filters of `notification_payload` the engine applies.
    static let filters = ["without_results", "without_uploads", "without_result_meta_data", "without_upload_meta_data", "without_params"]

    init(status: AssemblyStatusDocument, params: String, secret: String?) {
        var status = status
        let wanted = Set(JSONValue.parseIfValid(Data(params.utf8))?["notification_payload"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        if wanted.contains("without_results") { status.results = [:] }
        if wanted.contains("without_uploads") { status.uploads = [] }
        if wanted.contains("without_result_meta_data") { status.results = status.results.mapValues { $0.map { var file = $0; file.meta = nil; return file } } }
        if wanted.contains("without_upload_meta_data") { status.uploads = status.uploads.map { var file = $0; file.meta = nil; return file } }
        if wanted.contains("without_params") { status.params = nil }
        payload = status.jsonText()
        var fields = [("transloadit", payload)]
        if let secret { fields.append(("signature", NotificationSignature.sign(payload, secret: secret))) }
        let boundary = "pipeline-" + RandomID.hex32()
        var body = Data()
        for (name, value) in fields {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n".utf8))
            body.append(Data(value.utf8))
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        (self.body, contentType) = (body, "multipart/form-data; boundary=\(boundary)")
    }
}
