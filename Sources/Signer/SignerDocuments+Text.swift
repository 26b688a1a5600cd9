import Basics
import Wire

/// How the signer writes its documents: through `JSONValueEncoder`, serialized as every JSON the
/// project writes.
enum SignerDocuments {
    /// `document` as JSON text; a document that cannot be encoded (none of the signer's can:
    /// strings, whole numbers and lists of them) is an internal error's answer.
    static func text<Document: Encodable>(_ document: Document) -> String {
        do { return try JSONValueEncoder.encode(document).serialized() } catch {
            return #"{"error":"\#(SignerErrorCode.internal.rawValue)","message":"the answer could not be written","violations":[]}"#
        }
    }

    /// `violations` as the audit log lists them: the refusal's code alone when there are none.
    static func audited(_ violations: [SignerRefusal.Violation], code: SignerErrorCode) -> [JSONValue] {
        guard !violations.isEmpty else { return [.string(code.rawValue)] }
        do { return try violations.map { try JSONValueEncoder.encode($0) } } catch { return [.string(code.rawValue)] }
    }
}
