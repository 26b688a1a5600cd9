/// Where a job's sorted files are cut into Assemblies of at most `batch` files. The cuts are
/// anchored on the paths themselves, not on positions: a file ends an Assembly when its path's
/// hash says so, rarely while the Assembly has under 75% of `batch` files and often after (the
/// way content-defined chunking cuts files), or when the Assembly is full. So adding or removing
/// a file changes its own Assembly and a few around it, instead of shifting every Assembly after
/// it (each of which would then run again). Assemblies are about 80% full on average.
enum BatchBoundaries {
    /// The index ranges of `paths` (sorted) that make up Assemblies of at most `size` files.
    static func ranges(of paths: some RandomAccessCollection<String>, size: Int) -> [Range<Int>] {
        guard !paths.isEmpty else { return [] }
        guard size > 1 else { return (0..<paths.count).map { $0..<$0 + 1 } }
        let target = size - size / 4
        let rarely = UInt64(4 * size), often = UInt64(max(2, size / 4))
        var ranges: [Range<Int>] = []
        var start = 0
        for (offset, path) in paths.enumerated() {
            let length = offset - start + 1
            if length >= size || fnv1a(path) % (length < target ? rarely : often) == 0 {
                ranges.append(start..<offset + 1)
                start = offset + 1
            }
        }
        if start < paths.count { ranges.append(start..<paths.count) }
        return ranges
    }

    /// FNV-1a over the path's UTF-8 bytes: the same in every process and on every machine
    /// (Swift's own hashing is seeded per process).
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var text = text
        text.withUTF8 { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
        }
        // The low bits of FNV mix poorly for short, similar inputs: fold the high half in.
        return hash ^ (hash >> 32)
    }
}
