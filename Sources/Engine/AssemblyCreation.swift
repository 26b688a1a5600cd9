import Basics
import HTTPServer

/// What an Assembly is made of, however it was asked for (a form over HTTP, a call in process, a
/// replay): the params parsed once, and typed values for the rest.
struct AssemblyCreation {
    /// The params as a JSON object (authenticated before, where the engine checks signatures).
    var params: JSONValue
    /// The params exactly as received, which the record keeps and the status repeats.
    var rawParams: String
    /// The tus uploads it waits for; nil when the request gave a count that is no whole number.
    var expectedUploads: Int?
    /// Form fields beyond the params, signature and upload count: more `fields`.
    var extraFields: [(name: String, value: String)] = []
    /// File parts sent with it.
    var files: [FormData.FilePart] = []

    /// The form fields that say how an Assembly is made, not what it carries.
    static let reservedFields: Set<String> = ["params", "signature", "tus_num_expected_upload_files", "num_expected_upload_files"]

    /// The creation a form asks for; its params, authenticated when it was admitted, are parsed
    /// without a second check (which would count as a reused signature).
    static func of(_ form: FormData, missing: String) throws(APIRefusal) -> AssemblyCreation {
        let params = try SignedParams.read(form.field("params"), signature: nil, auth: nil, missing: missing)
        let expectedText = form.field("tus_num_expected_upload_files") ?? form.field("num_expected_upload_files") ?? "0"
        return AssemblyCreation(
            params: params, rawParams: form.field("params") ?? "", expectedUploads: Int(expectedText),
            extraFields: form.fields.filter { !reservedFields.contains($0.name) }, files: form.files)
    }
}
