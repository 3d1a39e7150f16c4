/// Reassembles frames from the chunks a link delivers (one BLE notification each), in order.
///
/// Feed every chunk as it arrives; complete frames and damaged regions come out through
/// the handler, in stream order:
///
/// ```swift
/// var decoder = FrameDecoder()
/// decoder.decode(notification) { event in
///     switch event {
///     case .frame(let frame, _): handle(frame)
///     case .damage(let damage): log(damage)
///     }
/// }
/// ```
///
/// How it resynchronises:
/// - Bytes that are not STX outside a frame are line noise: skipped, counted and reported.
/// - A header whose LEN exceeds the profile's maximum is rejected as soon as the header
///   is complete, without waiting for DATA.
/// - A rejected candidate (bad length, bad checksum, or cut off by ``finish(_:)``) gives
///   up only its STX: the bytes after it are scanned again, so a real frame that a false
///   STX in noise had started to swallow is still found.
/// - A frame's DATA is never searched for frames while the frame can still complete, so
///   card data that happens to look like a frame cannot be taken for one.
/// - A live link has no end of input: its owner calls ``finish(_:)`` when an incomplete
///   frame (``hasIncompleteFrame``) has received nothing for the profile's
///   ``FrameProfile/incompleteFrameTimeout``, and goes on decoding.
///
/// Memory stays bounded by one maximum-size frame whatever the input; the buffer is
/// allocated once, so feeding chunks allocates nothing in steady state (only a decoded
/// frame's DATA is a new array). Consumed bytes are wiped, since frames carry card data.
public struct FrameDecoder: Sendable {
    /// What ``decode(_:_:)`` and ``finish(_:)`` report.
    public enum Event: Sendable, Hashable {
        /// A frame whose checksum verified; `offset` is where its STX was in the stream.
        case frame(Frame, offset: Int)
        /// A region that did not decode.
        case damage(FrameDamage)
    }

    /// Running counts since creation or the last ``reset()``.
    ///
    /// `noiseBytes` counts every byte skipped while looking for STX, including the bytes
    /// after the STX of a rejected candidate, which are scanned again.
    public struct Statistics: Sendable, Hashable {
        public var bytesReceived = 0
        public var frames = 0
        public var noiseBytes = 0
        public var lengthErrors = 0
        public var checksumErrors = 0
        public var truncatedFrames = 0
    }

    public let profile: FrameProfile
    public private(set) var statistics = Statistics()

    private let crc: CRC16
    /// The current candidate frame: empty, or starting with STX. Never longer than one
    /// maximum-size frame.
    private var candidate: [UInt8]
    /// Stream offset of `candidate[0]` (or of the next byte when `candidate` is empty).
    private var candidateOffset = 0
    /// Damage is reported once: skipped bytes below this offset were already covered.
    private var reportedThrough = 0
    /// Noise seen but not yet reported; it is reported when the run ends.
    private var pendingNoise: Range<Int>?

    public init(profile: FrameProfile = .vpos3356) {
        self.profile = profile
        self.crc = CRC16(profile.checksum)
        self.candidate = []
        self.candidate.reserveCapacity(profile.maximumFrameLength)
    }

    /// Feeds one chunk and reports every frame and damaged region it completes.
    public mutating func decode(_ chunk: some Collection<UInt8>, _ handler: (Event) -> Void) {
        let done: Void? = chunk.withContiguousStorageIfAvailable { decode(contiguous: $0, handler) }
        if done == nil {
            Array(chunk).withUnsafeBufferPointer { decode(contiguous: $0, handler) }
        }
    }

    /// The decoder's one code path, over contiguous bytes: it stays fast when called from
    /// other modules, where the generic entry point is not specialized.
    private mutating func decode(contiguous chunk: UnsafeBufferPointer<UInt8>, _ handler: (Event) -> Void) {
        statistics.bytesReceived += chunk.count
        var index = 0
        while index < chunk.count {
            if candidate.isEmpty {
                guard let start = chunk[index...].firstIndex(of: profile.startByte) else {
                    skipArriving(chunk.count - index, handler)
                    return
                }
                skipArriving(start - index, handler)
                index = start
            }
            let wanted = bytesUntilNextDecision() - candidate.count
            let end = min(index + wanted, chunk.count)
            candidate.append(contentsOf: chunk[index..<end])
            index = end
            settle(handler)
        }
    }

    /// Whether bytes are held for a frame that has not completed yet.
    public var hasIncompleteFrame: Bool { !candidate.isEmpty }

    /// Cuts off what is held: a frame the input ended inside, or one whose bytes stopped
    /// coming on a live link, is reported as truncated, the bytes after its STX are scanned
    /// again (frames among them are reported), and pending noise is reported. Decoding may
    /// go on afterwards; offsets continue.
    public mutating func finish(_ handler: (Event) -> Void) {
        while !candidate.isEmpty {
            let expected = candidate.count >= FrameProfile.headerLength ? declaredFrameLength : nil
            statistics.truncatedFrames += 1
            reject(reason: .truncated(expectedLength: expected), length: candidate.count, handler)
            settle(handler)
        }
        flushNoise(handler)
    }

    /// Forgets everything, for a new connection: buffered bytes (wiped), offsets, statistics.
    public mutating func reset() {
        consume(candidate.count)
        candidateOffset = 0
        reportedThrough = 0
        pendingNoise = nil
        statistics = Statistics()
    }

    /// Convenience for tests and tools: the events of one chunk as an array.
    public mutating func decode(_ chunk: some Collection<UInt8>) -> [Event] {
        var events: [Event] = []
        decode(chunk) { events.append($0) }
        return events
    }

    /// Convenience: the events of ending the stream as an array.
    public mutating func finish() -> [Event] {
        var events: [Event] = []
        finish { events.append($0) }
        return events
    }

    // MARK: - State machine

    private var declaredDataLength: Int { Int(candidate[3]) << 8 | Int(candidate[4]) }
    private var declaredFrameLength: Int { declaredDataLength + FrameProfile.overhead }

    /// How long `candidate` must be before anything can be decided about it.
    private func bytesUntilNextDecision() -> Int {
        candidate.count < FrameProfile.headerLength ? FrameProfile.headerLength : declaredFrameLength
    }

    /// Decides about the candidate as far as its bytes allow, rescanning after rejections.
    private mutating func settle(_ handler: (Event) -> Void) {
        while !candidate.isEmpty {
            if candidate[0] != profile.startByte {
                let skipped = candidate.firstIndex(of: profile.startByte) ?? candidate.count
                let start = candidateOffset
                consume(skipped)
                noteNoise(start..<candidateOffset, handler)
                continue
            }
            guard candidate.count >= FrameProfile.headerLength else { return }
            let dataLength = declaredDataLength
            guard dataLength <= profile.maximumDataLength else {
                statistics.lengthErrors += 1
                reject(
                    reason: .lengthOutOfRange(declared: dataLength, maximum: profile.maximumDataLength),
                    length: FrameProfile.headerLength, handler)
                continue
            }
            let frameLength = declaredFrameLength
            guard candidate.count >= frameLength else { return }
            let computed = crc.checksum(candidate[1..<(frameLength - 2)])
            let received = UInt16(
                candidate[frameLength - 2], candidate[frameLength - 1], order: profile.checksumByteOrder)
            guard computed == received else {
                statistics.checksumErrors += 1
                reject(reason: .checksumMismatch(computed: computed, received: received), length: frameLength, handler)
                continue
            }
            flushNoise(handler)
            let frame = Frame(
                main: candidate[1], sub: candidate[2],
                data: Array(candidate[FrameProfile.headerLength..<(frameLength - 2)]))
            let offset = candidateOffset
            consume(frameLength)
            statistics.frames += 1
            handler(.frame(frame, offset: offset))
        }
    }

    /// Reports the candidate as damaged and gives up its STX so the rest is scanned again.
    private mutating func reject(reason: FrameDamage.Reason, length: Int, _ handler: (Event) -> Void) {
        flushNoise(handler)
        let end = candidateOffset + length
        if end > reportedThrough {
            let start = max(candidateOffset, reportedThrough)
            handler(.damage(FrameDamage(offset: start, length: end - start, reason: reason)))
            reportedThrough = end
        }
        consume(1)
    }

    /// Skips `count` non-STX bytes that arrived outside any candidate.
    private mutating func skipArriving(_ count: Int, _ handler: (Event) -> Void) {
        guard count > 0 else { return }
        let start = candidateOffset
        candidateOffset += count
        noteNoise(start..<candidateOffset, handler)
    }

    /// Counts skipped bytes and reports the part no earlier damage covered, merging runs.
    private mutating func noteNoise(_ skipped: Range<Int>, _ handler: (Event) -> Void) {
        statistics.noiseBytes += skipped.count
        let unreported = max(skipped.lowerBound, reportedThrough)..<max(skipped.upperBound, reportedThrough)
        guard !unreported.isEmpty else { return }
        if let pending = pendingNoise, pending.upperBound == unreported.lowerBound {
            pendingNoise = pending.lowerBound..<unreported.upperBound
        } else {
            flushNoise(handler)
            pendingNoise = unreported
        }
    }

    private mutating func flushNoise(_ handler: (Event) -> Void) {
        guard let noise = pendingNoise else { return }
        pendingNoise = nil
        reportedThrough = max(reportedThrough, noise.upperBound)
        handler(.damage(FrameDamage(offset: noise.lowerBound, length: noise.count, reason: .noise)))
    }

    /// Drops the first `count` candidate bytes, wiping them and their old copies.
    private mutating func consume(_ count: Int) {
        guard count > 0 else { return }
        let remaining = candidate.count - count
        candidate.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            base.update(from: base + count, count: remaining)
            (base + remaining).update(repeating: 0, count: count)
        }
        candidate.removeLast(count)
        candidateOffset += count
    }

    /// Bytes held for an incomplete candidate (for tests of the memory bound).
    var bufferedByteCount: Int { candidate.count }
    /// The buffer's allocated size (for tests that it never grows).
    var bufferCapacity: Int { candidate.capacity }
}
