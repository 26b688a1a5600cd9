import Basics
import Foundation

extension AssemblyRecord {
    /// The record as its file in the data folder holds it: the JSON `StateCoding.encoder` makes of
    /// it (which reads it back), built directly. The store writes an Assembly again as its uploads
    /// arrive, and Codable's encoder took a sixth of the engine's time receiving small files.
    func stateJSON() throws -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "origin": .string(origin), "params": .string(params), "steps": steps, "fields": .object(fields),
            "expectedTusUploads": .int(expectedTusUploads), "tusLinks": .array(tusLinks.map(\.stateJSON)),
            "uploads": .array(uploads.map(\.stateJSON)), "results": .object(results.mapValues { .array($0.map(\.stateJSON)) }),
            "message": .string(message), "created": .string(AuthTime.format(created)),
        ]
        object["notifyURL"] = notifyURL.map(JSONValue.string)
        object["parentID"] = parentID.map(JSONValue.string)
        // Its dates as every state file's: ISO 8601, which the store's decoder reads.
        object["notification"] = try notification.map { try JSONValueEncoder.encode($0, iso8601Dates: true) }
        object["ignoredErrors"] = try ignoredErrors.map { try JSONValueEncoder.encode($0) }
        object["warnings"] = try warnings.map { try JSONValueEncoder.encode($0) }
        object["ok"] = storedPhase.ok.map { .string($0.rawValue) }
        object["error"] = storedPhase.error.map { .string($0.rawValue) }
        object["finished"] = finished.map { .string(AuthTime.format($0)) }
        object["clientAgent"] = clientAgent.map(JSONValue.string)
        object["filesRemoved"] = filesRemoved.map { .string(AuthTime.format($0)) }
        return .object(object)
    }
}

extension AssemblyRecord.TusLink {
    var stateJSON: JSONValue {
        var object: [String: JSONValue] = [
            "uploadID": .string(uploadID), "filename": .string(filename), "fieldname": .string(fieldname),
            "offset": .int(Int(offset)), "finished": .bool(finished),
        ]
        object["size"] = size.map { .int(Int($0)) }
        return .object(object)
    }
}

extension AssemblyFile {
    /// The file as an Assembly's record holds it (see `AssemblyRecord.stateJSON`).
    var stateJSON: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "name": .string(name), "field": .string(field), "originalID": .string(originalID),
            "originalName": .string(originalName), "path": .string(path), "size": .int(Int(size)), "mime": .string(mime),
            "meta": .object(meta), "isTusFile": .bool(isTusFile),
        ]
        object["exportURL"] = exportURL.map(JSONValue.string)
        object["exportSSLURL"] = exportSSLURL.map(JSONValue.string)
        object["signedURL"] = signedURL.map(JSONValue.string)
        object["signedSSLURL"] = signedSSLURL.map(JSONValue.string)
        object["md5"] = md5.map(JSONValue.string)
        object["inPlace"] = inPlace.map { identity in
            var fields: [String: JSONValue] = [
                "device": .int(identity.device), "inode": .int(identity.inode), "size": .int(Int(identity.size)), "modified": .int(Int(identity.modified)),
            ]
            fields["changed"] = identity.changed.map { .int(Int($0)) }
            fields["links"] = identity.links.map(JSONValue.int)
            return .object(fields)
        }
        return .object(object)
    }
}
