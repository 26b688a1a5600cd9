import Foundation
import HTTPServer
import Wire

/// The engine's refusals of Assembly and Template API requests, each once: the code, the HTTP
/// status and the message (with what it names), answered in the shape the SDKs read.
struct APIRefusal: Error, Sendable, Equatable {
    let code: APIErrorCode
    let status: Int
    let message: String
    /// The Assembly it concerns, when the answer names one.
    var assemblyID: String?
    /// Seconds to wait before trying again (`info.retryIn` and `Retry-After`), for rate limits.
    var retryIn: Double?

    init(_ code: APIErrorCode, _ status: Int, _ message: String, assemblyID: String? = nil, retryIn: Double? = nil) {
        (self.code, self.status, self.message, self.assemblyID, self.retryIn) = (code, status, message, assemblyID, retryIn)
    }

    /// The answer.
    var response: ServerResponse {
        .json(status, AssemblyStatus.error(code, message, status: status, id: assemblyID, retryIn: retryIn),
              headers: retryIn.map { [("Retry-After", String(Int($0.rounded(.up))))] } ?? [])
    }

    // Routes and requests
    static func noRoute(_ method: String, _ path: String) -> APIRefusal { APIRefusal(.notFound, 404, "no such endpoint: \(method) \(path)") }
    static let storageFull = APIRefusal(.storageFull, 507, DiskSpace.fullMessage)
    static func noParams(_ how: String) -> APIRefusal { APIRefusal(.noParamsField, 400, how) }
    static func duplicateKey(_ key: String, _ detail: String) -> APIRefusal {
        APIRefusal(.duplicateKey, 400, "'params' has the key '\(key)' twice in one object (at \(detail)); send each key once")
    }
    static func paramsNotJSON(_ detail: String) -> APIRefusal { APIRefusal(.invalidParamsField, 400, "'params' is not valid JSON: \(detail)") }
    static let paramsNotObject = APIRefusal(.invalidParamsField, 400, "'params' is not a JSON object")

    // Signatures
    static let noSignature = APIRefusal(.noSignatureField, 400, "the request has no signature field; sign the params with the Auth Secret")
    static let wrongSignature = APIRefusal(.invalidSignature, 403, "the signature does not match the params; sign the exact params string sent")
    static let unknownAuthKey = APIRefusal(.unknownAuthKey, 403, "auth.key is not this engine's Auth Key")
    static let noAuthExpires = APIRefusal(.noAuthExpires, 400, "auth.expires is missing")
    static func authExpiresNotADate(_ text: String) -> APIRefusal { APIRefusal(.invalidAuthExpires, 400, "auth.expires '\(text)' is not a date") }
    static func authExpired(at text: String) -> APIRefusal { APIRefusal(.authExpired, 403, "the signature expired at \(text)") }
    static let signatureReused = APIRefusal(.signatureReused, 403, "this signature was used before; add auth.nonce so each request is unique")

    // Assemblies
    static let invalidAssemblyID = APIRefusal(.invalidAssemblyID, 400, "an Assembly id is 32 lowercase hex characters")
    static func assemblyIDTaken(_ id: String) -> APIRefusal { APIRefusal(.assemblyIDTaken, 409, "Assembly \(id) exists already; use a new id", assemblyID: id) }
    static func assemblyNotFound(_ id: String) -> APIRefusal { APIRefusal(.assemblyNotFound, 404, "no Assembly with id \(id)", assemblyID: id) }
    static func rateLimited(retryIn seconds: Double) -> APIRefusal {
        APIRefusal(.rateLimitReached, 429, "too many Assemblies; retry in \(Int(seconds)) s", retryIn: seconds)
    }
    static func policyViolation(_ findings: [String]) -> APIRefusal { APIRefusal(.policyViolation, 403, findings.joined(separator: "; ")) }
    static func cannotBeReplayed(_ id: String, _ why: String) -> APIRefusal {
        APIRefusal(.cannotBeReplayed, 400, "Assembly \(id) cannot be replayed: \(why)", assemblyID: id)
    }
    static let noSteps = APIRefusal(.invalidSteps, 400, "params have no 'steps'")
    static func invalidSteps(_ problem: String) -> APIRefusal { APIRefusal(.invalidSteps, 400, problem) }
    static let expectedUploadsNotANumber = APIRefusal(.invalidExpectedUploads, 400, "the number of expected uploads must be a whole number")
    /// Shared engines whose database cannot be reached (the Assembly may well exist).
    static let storeUnreachable = APIRefusal(.storageError, 503, "the engine's database cannot be reached; try again shortly")
    static let uploadNotStored = APIRefusal(.serverError, 500, "an uploaded file could not be stored")
    static func assemblyNotSaved(_ id: String, _ reason: String) -> APIRefusal {
        APIRefusal(.storageError, 500, "the Assembly could not be saved in the engine's data folder: \(reason)", assemblyID: id)
    }

    // Files handed over in process
    static func assemblyEnded(_ id: String) -> APIRefusal {
        APIRefusal(.assemblyCanceled, 409, "Assembly \(id) ended (canceled or failed) and takes no more files", assemblyID: id)
    }
    static func fileChanged(_ name: String, _ reason: String) -> APIRefusal {
        APIRefusal(.fileChanged, 409, "'\(name)' changed since it was planned: \(reason); run again to plan its new content")
    }
    static func fileUnreadable(_ name: String, _ reason: String) -> APIRefusal {
        APIRefusal(.uploadFailed, 400, "'\(name)' cannot be handed over: \(reason)")
    }
    static func uploadNotKept(_ id: String, _ reason: String) -> APIRefusal {
        APIRefusal(.storageError, 500, "an upload could not be kept with the Assembly: \(reason)", assemblyID: id)
    }

    // Templates
    static func templateNotFound(_ id: String) -> APIRefusal { APIRefusal(.templateNotFound, 404, "no Template with id \(id)") }
    static func templateNameTaken(_ name: String, creating: Bool) -> APIRefusal {
        APIRefusal(.templateNameTaken, 409, "a Template named '\(name)' exists" + (creating ? "; update it instead" : ""))
    }
    static func templateNameInvalid(_ name: String) -> APIRefusal {
        APIRefusal(.invalidTemplateName, 400, "a Template's name is 5 to 40 lowercase letters and dashes, not '\(name)'")
    }
    static func templateInvalid(_ problem: String) -> APIRefusal { APIRefusal(.invalidTemplate, 400, problem) }
    static func templateDeniesSteps(_ name: String) -> APIRefusal {
        APIRefusal(.templateDeniesStepsOverride, 400, "Template \(name) does not allow 'steps' next to its id")
    }
    static func templateNotSaved(_ reason: String) -> APIRefusal {
        APIRefusal(.storageError, 500, "the Template could not be saved in the engine's data folder: \(reason)")
    }
}
