import Foundation

/// Walks a JPEG's segments (skipping each by its length) and the entropy-coded data after each
/// start of scan, until the end-of-image marker: a file cut short never reaches it, while data a
/// camera appends after it (a motion photo's video) does not count against the file. Bytes come
/// in pieces of any size, from the file's first byte.
struct JPEGEndWalker: Sendable {
    private enum State: Sendable {
        /// The `FF D8` that opens the file: how many of its bytes are still to come.
        case start(Int)
        /// A marker's `FF`.
        case markerPrefix
        /// The marker's code (after any fill `FF`s).
        case markerCode
        /// The first byte of a segment's length.
        case lengthHigh(code: UInt8)
        /// The second byte.
        case lengthLow(code: UInt8, high: UInt8)
        /// A segment's remaining bytes; then entropy-coded data after a start of scan.
        case skip(Int, thenScan: Bool)
        /// Entropy-coded data, up to an `FF`.
        case scan
        /// An `FF` inside entropy-coded data.
        case scanPrefix
        /// The end was found, or the structure is not one this walks (then nothing is claimed).
        case done
    }

    private var state = State.start(2)
    /// Whether the end-of-image marker was seen, or the walk gave up on a structure it does not know.
    private(set) var isComplete = false

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count {
            switch state {
            case .done:
                return
            case .skip(let count, let thenScan):
                let taken = min(count, bytes.count - index)
                index += taken
                state = taken == count ? (thenScan ? .scan : .markerPrefix) : .skip(count - taken, thenScan: thenScan)
            case .scan:
                // The commonest state by far: found with memchr rather than a byte at a time.
                guard let base = bytes.baseAddress, let found = memchr(base + index, 0xFF, bytes.count - index) else { return }
                index = base.distance(to: UnsafeRawPointer(found)) + 1
                state = .scanPrefix
            default:
                step(bytes[index])
                index += 1
            }
        }
    }

    private mutating func step(_ byte: UInt8) {
        switch state {
        case .start(let left):
            state = left == 2 && byte == 0xFF ? .start(1) : left == 1 && byte == 0xD8 ? .markerPrefix : giveUp()
        case .markerPrefix:
            state = byte == 0xFF ? .markerCode : giveUp()
        case .markerCode:
            switch byte {
            case 0xFF: break
            case 0xD9: finish()
            case 0xD0...0xD7, 0x01: state = .markerPrefix
            default: state = .lengthHigh(code: byte)
            }
        case .lengthHigh(let code):
            state = .lengthLow(code: code, high: byte)
        case .lengthLow(let code, let high):
            let length = Int(high) << 8 | Int(byte)
            state = length < 2 ? giveUp() : .skip(length - 2, thenScan: code == 0xDA)
        case .scanPrefix:
            switch byte {
            case 0x00, 0xD0...0xD7: state = .scan
            case 0xFF: break
            case 0xD9: finish()
            default: state = .lengthHigh(code: byte)
            }
        case .skip, .scan, .done:
            break
        }
    }

    private mutating func finish() {
        isComplete = true
        state = .done
    }

    private mutating func giveUp() -> State {
        isComplete = true
        return .done
    }
}

/// Walks a PNG's chunks by their lengths until `IEND` and its checksum: a file cut short never
/// gets there. Bytes come in pieces of any size, from the file's first byte.
struct PNGEndWalker: Sendable {
    /// The signature, then each chunk's length and type.
    private var header: [UInt8] = []
    private var skipping = 0
    private var atEnd = false
    private var signatureRead = false
    /// Whether `IEND` and its checksum were seen.
    private(set) var isComplete = false

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count, !isComplete {
            if skipping > 0 {
                let taken = min(skipping, bytes.count - index)
                skipping -= taken
                index += taken
                if skipping == 0, atEnd { isComplete = true }
                continue
            }
            // The signature and each chunk's header are both eight bytes.
            let wanted = 8
            let taken = min(wanted - header.count, bytes.count - index)
            header += UnsafeRawBufferPointer(rebasing: bytes[index..<index + taken])
            index += taken
            guard header.count == wanted else { continue }
            if !signatureRead {
                signatureRead = true
            } else {
                let length = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
                atEnd = header[4..<8].elementsEqual("IEND".utf8)
                // The chunk's data and its four-byte checksum.
                skipping = length + 4
            }
            header.removeAll(keepingCapacity: true)
        }
    }
}
