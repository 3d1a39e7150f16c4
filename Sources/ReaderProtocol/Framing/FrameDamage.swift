/// A region of the byte stream that did not decode as a frame.
///
/// `offset` counts bytes from the start of the stream (or from the last
/// ``FrameDecoder/reset()``). A rejected candidate's region can contain frames that the
/// decoder recovered by rescanning it; those are reported separately.
public struct FrameDamage: Sendable, Hashable, CustomStringConvertible {
    /// Why the region did not decode as a frame.
    public enum Reason: Sendable, Hashable {
        /// Bytes between frames that are not STX: line noise, skipped.
        case noise
        /// A header declared more DATA than the profile allows: the stream had lost sync.
        case lengthOutOfRange(declared: Int, maximum: Int)
        /// The checksum computed over MAIN…DATA differs from the one received.
        case checksumMismatch(computed: UInt16, received: UInt16)
        /// A frame was cut off: the input ended inside it, or on a live link its bytes stopped
        /// coming (``FrameProfile/incompleteFrameTimeout``); `expectedLength` is nil if the
        /// header was cut too.
        case truncated(expectedLength: Int?)
    }

    /// Where the region starts, in bytes from the start of the stream.
    public var offset: Int
    /// How many bytes the region spans.
    public var length: Int
    /// Why the region did not decode.
    public var reason: Reason

    /// A damaged region of `length` bytes at `offset`.
    public init(offset: Int, length: Int, reason: Reason) {
        self.offset = offset
        self.length = length
        self.reason = reason
    }

    /// The region and the reason, e.g. `9 bytes at offset 120: checksum mismatch: computed 34FC, received 34FD`.
    public var description: String {
        "\(length) byte\(length == 1 ? "" : "s") at offset \(offset): \(reason)"
    }
}

extension FrameDamage.Reason: CustomStringConvertible {
    /// A short, stable identifier for scripts: `noise`, `length-out-of-range`, `checksum-mismatch`, `truncated`.
    public var identifier: String {
        switch self {
        case .noise: "noise"
        case .lengthOutOfRange: "length-out-of-range"
        case .checksumMismatch: "checksum-mismatch"
        case .truncated: "truncated"
        }
    }

    /// The reason with its numbers, e.g. `declared DATA length 4660 exceeds the maximum 1024`.
    public var description: String {
        switch self {
        case .noise:
            "line noise (bytes outside any frame)"
        case .lengthOutOfRange(let declared, let maximum):
            "declared DATA length \(declared) exceeds the maximum \(maximum)"
        case .checksumMismatch(let computed, let received):
            "checksum mismatch: computed \(computed.hexWord), received \(received.hexWord)"
        case .truncated(let expected?):
            "frame of \(expected) bytes cut off (the input ended, or its bytes stopped coming)"
        case .truncated(nil):
            "frame header cut off (the input ended, or its bytes stopped coming)"
        }
    }
}

extension UInt16 {
    /// Four upper-case hex digits.
    var hexWord: String { UInt8(truncatingIfNeeded: self >> 8).hexByte + UInt8(truncatingIfNeeded: self).hexByte }
}
