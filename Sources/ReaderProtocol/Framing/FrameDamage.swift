/// A region of the byte stream that did not decode as a frame.
///
/// `offset` counts bytes from the start of the stream (or from the last
/// ``FrameDecoder/reset()``). A rejected candidate's region can contain frames that the
/// decoder recovered by rescanning it; those are reported separately.
public struct FrameDamage: Sendable, Hashable, CustomStringConvertible {
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

    public var offset: Int
    public var length: Int
    public var reason: Reason

    public init(offset: Int, length: Int, reason: Reason) {
        self.offset = offset
        self.length = length
        self.reason = reason
    }

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
