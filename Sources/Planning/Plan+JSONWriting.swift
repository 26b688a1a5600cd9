import Basics
import Crypto
import Foundation

extension Plan {
    /// The plan's JSON text followed by a newline, byte for byte what `json.serialized(pretty: true)`
    /// gives, emitted in pieces of about `pieceSize` bytes without building the JSON tree, so a plan
    /// of a million files is written in little memory. `warnings` (planning's, such as results the
    /// hosted service deletes after a day) follow as `warnings`, for whoever reads the plan.
    public func writeJSON(pieceSize: Int = 1 << 20, warnings: [Diagnostic] = [], _ emit: (Data) -> Void) {
        var output: [UInt8] = []
        output.reserveCapacity(pieceSize + (64 << 10))
        // Keys in byte order, as the serializer sorts them: assemblies, manifest, pipeline, summary, version, warnings.
        output.append(contentsOf: "{\n  \"assemblies\": ".utf8)
        if assemblies.isEmpty {
            output.append(contentsOf: "[]".utf8)
        } else {
            output.append(UInt8(ascii: "["))
            for (index, assembly) in assemblies.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.newline(&output, pretty: true, depth: 2)
                assembly.writeJSON(to: &output, depth: 2, pieceSize: pieceSize, emit: emit)
            }
            JSONValue.newline(&output, pretty: true, depth: 1)
            output.append(UInt8(ascii: "]"))
        }
        output.append(contentsOf: ",\n  \"manifest\": ".utf8)
        JSONValue.writeString(manifest, to: &output)
        output.append(contentsOf: ",\n  \"pipeline\": ".utf8)
        JSONValue.writeString(pipeline, to: &output)
        output.append(contentsOf: ",\n  \"summary\": ".utf8)
        JSONValue.object([
            "jobs": .int(jobs.count), "assemblies": .int(assemblies.count), "files": .int(fileCount), "bytes": .int(Int(byteCount)),
            "usage": UsageEstimate(self).json,
        ]).write(to: &output, pretty: true, depth: 1)
        output.append(contentsOf: ",\n  \"version\": \(Self.formatVersion)".utf8)
        if !warnings.isEmpty {
            output.append(contentsOf: ",\n  \"warnings\": ".utf8)
            JSONValue.array(warnings.map(\.json)).write(to: &output, pretty: true, depth: 1)
        }
        output.append(contentsOf: "\n}\n".utf8)
        emit(Data(output))
    }
}

extension PlannedAssembly {
    /// Keys in byte order: bytes, files, id, instructions, job; files' keys: path, sha256, size.
    fileprivate func writeJSON(to output: inout [UInt8], depth: Int, pieceSize: Int, emit: (Data) -> Void) {
        let inner = depth + 1
        output.append(UInt8(ascii: "{"))
        JSONValue.newline(&output, pretty: true, depth: inner)
        output.append(contentsOf: "\"bytes\": \(bytes),".utf8)
        JSONValue.newline(&output, pretty: true, depth: inner)
        output.append(contentsOf: "\"files\": ".utf8)
        if files.isEmpty {
            output.append(contentsOf: "[]".utf8)
        } else {
            output.append(UInt8(ascii: "["))
            // The text between a file's values, indented for this depth, made once for all files.
            var opening: [UInt8] = [], beforeDigest: [UInt8] = [], beforeSize: [UInt8] = [], closing: [UInt8] = []
            JSONValue.newline(&opening, pretty: true, depth: inner + 1)
            opening.append(UInt8(ascii: "{"))
            JSONValue.newline(&opening, pretty: true, depth: inner + 2)
            opening.append(contentsOf: "\"path\": ".utf8)
            beforeDigest.append(UInt8(ascii: ","))
            JSONValue.newline(&beforeDigest, pretty: true, depth: inner + 2)
            beforeDigest.append(contentsOf: "\"sha256\": \"".utf8)
            beforeSize.append(contentsOf: "\",".utf8)
            JSONValue.newline(&beforeSize, pretty: true, depth: inner + 2)
            beforeSize.append(contentsOf: "\"size\": ".utf8)
            JSONValue.newline(&closing, pretty: true, depth: inner + 1)
            closing.append(UInt8(ascii: "}"))
            for (index, file) in files.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                output.append(contentsOf: opening)
                JSONValue.writeString(file.path, to: &output)
                output.append(contentsOf: beforeDigest)
                file.digest.appendHex(to: &output)
                output.append(contentsOf: beforeSize)
                output.appendDecimal(file.size)
                output.append(contentsOf: closing)
                if output.count >= pieceSize {
                    emit(Data(output))
                    output.removeAll(keepingCapacity: true)
                }
            }
            JSONValue.newline(&output, pretty: true, depth: inner)
            output.append(UInt8(ascii: "]"))
        }
        output.append(UInt8(ascii: ","))
        JSONValue.newline(&output, pretty: true, depth: inner)
        output.append(contentsOf: "\"id\": ".utf8)
        JSONValue.writeString(id, to: &output)
        output.append(UInt8(ascii: ","))
        JSONValue.newline(&output, pretty: true, depth: inner)
        output.append(contentsOf: "\"instructions\": ".utf8)
        instructions.write(to: &output, pretty: true, depth: inner)
        output.append(UInt8(ascii: ","))
        JSONValue.newline(&output, pretty: true, depth: inner)
        output.append(contentsOf: "\"job\": ".utf8)
        JSONValue.writeString(job, to: &output)
        JSONValue.newline(&output, pretty: true, depth: depth)
        output.append(UInt8(ascii: "}"))
    }
}
