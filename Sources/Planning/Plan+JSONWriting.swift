import Basics
import Crypto
import Foundation

extension Plan {
    /// The plan's JSON text followed by a newline, byte for byte what `json.serialized(pretty: true)`
    /// gives, emitted in pieces of about `pieceSize` bytes without building the JSON tree, so a plan
    /// of a million files is written in little memory. Assemblies are rendered on `workers` threads
    /// a window at a time, and emitted in order.
    public func writeJSON(pieceSize: Int = 1 << 20, workers: Int = ParallelWork.cores, _ emit: (Data) -> Void) {
        var output: [UInt8] = []
        output.reserveCapacity(pieceSize + (64 << 10))
        // Keys in byte order, as the serializer sorts them: assemblies, manifest, pipeline, summary, version.
        output.append(contentsOf: "{\n  \"assemblies\": ".utf8)
        if assemblies.isEmpty {
            output.append(contentsOf: "[]".utf8)
        } else {
            output.append(UInt8(ascii: "["))
            var start = 0
            while start < assemblies.count {
                let end = windowEnd(from: start, workers: workers, perShare: Self.filesPerShare(pieceSize: pieceSize))
                if end == start + 1 || workers == 1 {
                    // One Assembly (perhaps of many files, written in pieces as it goes), or one thread.
                    for index in start..<end { writeAssembly(index, to: &output, pieceSize: pieceSize, emit: emit) }
                } else {
                    if !output.isEmpty { emit(Data(output)) }
                    output.removeAll(keepingCapacity: true)
                    let shares = Self.shares(of: assemblies[start..<end], count: workers)
                    let rendered = ParallelWork.map(count: shares.count, workers: workers, placeholder: [UInt8]()) {
                        { share in
                            var bytes: [UInt8] = []
                            for index in shares[share] { writeAssembly(index, to: &bytes, pieceSize: .max, emit: { _ in }) }
                            return bytes
                        }
                    }
                    for bytes in rendered where !bytes.isEmpty { emit(Data(bytes)) }
                }
                start = end
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
        output.append(contentsOf: ",\n  \"version\": \(Self.formatVersion)\n}\n".utf8)
        emit(Data(output))
    }
}

extension Plan {
    /// How many files one thread renders at once for pieces of `pieceSize` bytes: a file takes
    /// about 256 bytes of a plan, so a share is about a piece (4,096 files for a megabyte).
    static func filesPerShare(pieceSize: Int) -> Int { max(1, pieceSize / 256) }

    /// The end of the window that starts at `start`: the Assemblies after it up to `workers`
    /// shares of files. An Assembly of more than a share is a window of its own.
    fileprivate func windowEnd(from start: Int, workers: Int, perShare: Int) -> Int {
        var end = start, files = 0
        while end < assemblies.count, files < workers * perShare {
            let count = assemblies[end].files.count
            if count > perShare { return end == start ? start + 1 : end }
            files += count + 1
            end += 1
        }
        return end
    }

    /// `window` cut into up to `count` runs of Assemblies with about as many files each.
    fileprivate static func shares(of window: ArraySlice<PlannedAssembly>, count: Int) -> [Range<Int>] {
        let total = window.reduce(0) { $0 + $1.files.count + 1 }
        let target = max(1, (total + count - 1) / count)
        var shares: [Range<Int>] = [], first = window.startIndex, files = 0
        for index in window.indices {
            files += window[index].files.count + 1
            if files >= target {
                shares.append(first..<index + 1)
                first = index + 1
                files = 0
            }
        }
        if first < window.endIndex { shares.append(first..<window.endIndex) }
        return shares
    }

    /// The Assembly at `index` as an element of the plan's array, with the comma before it.
    fileprivate func writeAssembly(_ index: Int, to output: inout [UInt8], pieceSize: Int, emit: (Data) -> Void) {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        JSONValue.newline(&output, pretty: true, depth: 2)
        assemblies[index].writeJSON(to: &output, depth: 2, pieceSize: pieceSize, emit: emit)
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
