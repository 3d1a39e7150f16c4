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
/// Time and memory are linear in the input whatever it holds: each byte goes through the
/// CRC once, when a decision first needs it, judging a candidate costs the same at any
/// length (`CRC16RangeChecksum`), and giving up one STX moves no bytes.
/// Memory is fixed: a buffer of two maximum-size frames, a CRC register for every eighth
/// buffered byte and a table of one entry per byte of the longest frame (about 5 kB for
/// the VPOS3356 profile), all allocated once, so feeding chunks allocates nothing in
/// steady state (only a decoded frame's DATA is a new array). Consumed bytes and their
/// registers are wiped, since frames carry card data.
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
        /// Bytes fed to ``decode(_:_:)``.
        public var bytesReceived = 0
        /// Frames whose checksum verified.
        public var frames = 0
        /// Bytes skipped while looking for STX.
        public var noiseBytes = 0
        /// Candidates rejected because their header declared more DATA than the profile allows.
        public var lengthErrors = 0
        /// Candidates rejected because their checksum did not match.
        public var checksumErrors = 0
        /// Frames cut off by ``finish(_:)``.
        public var truncatedFrames = 0
    }

    /// The framing rules the decoder applies.
    public let profile: FrameProfile
    /// Running counts since creation or the last ``reset()``.
    public private(set) var statistics = Statistics()

    private let checksums: CRC16RangeChecksum
    /// The profile's fields the hot path reads, kept apart from its checksum variant's name.
    private let startByte: UInt8
    private let maximumDataLength: Int
    private let checksumByteOrder: FrameProfile.ChecksumByteOrder
    /// Bytes received and not yet consumed are `buffer[start..<end]`: the current candidate
    /// frame, empty or starting with STX, never longer than one maximum-size frame. The
    /// buffer has a fixed size; consumed bytes are zeros, and the candidate moves to the
    /// front when the next chunk does not fit behind it.
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    /// `checkpoints[k]`: the CRC register before `buffer[8k]`, fed from some earlier origin
    /// (range checksums need only the difference between two registers, so any common
    /// origin serves); valid from the candidate's start through `fed`.
    private var checkpoints: [UInt16]
    /// Bytes are fed to the CRC when a decision needs a register beyond those fed so far, so
    /// each byte is fed once, in long runs: `buffer[..<fed]` have been, `start <= fed <= end`.
    private var fed = 0
    /// The register before `buffer[fed]`.
    private var fedRegister: UInt16 = 0
    /// The register before `buffer[start]` (the bytes before `start` are wiped, so the
    /// register there cannot be computed from a checkpoint).
    private var startRegister: UInt16 = 0
    /// The buffer's fixed size: two maximum-size frames.
    private let bufferLimit: Int
    /// Stream offset of `buffer[start]` (or of the next byte when the candidate is empty).
    private var candidateOffset = 0
    /// Damage is reported once: skipped bytes below this offset were already covered.
    private var reportedThrough = 0
    /// Noise seen but not yet reported; it is reported when the run ends.
    private var pendingNoise: Range<Int>?

    /// A decoder with an empty buffer for frames under `profile`.
    public init(profile: FrameProfile = .vpos3356) {
        self.profile = profile
        self.checksums = CRC16RangeChecksum(profile.checksum, longestRange: profile.maximumFrameLength)
        self.startByte = profile.startByte
        self.maximumDataLength = profile.maximumDataLength
        self.checksumByteOrder = profile.checksumByteOrder
        self.bufferLimit = 2 * profile.maximumFrameLength
        self.buffer = [UInt8](repeating: 0, count: bufferLimit)
        self.checkpoints = [UInt16](
            repeating: 0, count: bufferLimit / CRC16RangeChecksum.checkpointInterval + 1)
    }

    /// Feeds one chunk and reports every frame and damaged region it completes.
    @inlinable
    public mutating func decode(_ chunk: some Collection<UInt8>, _ handler: (Event) -> Void) {
        let done: Void? = chunk.withContiguousStorageIfAvailable { decode(contiguous: $0, handler) }
        if done == nil {
            Array(chunk).withUnsafeBufferPointer { decode(contiguous: $0, handler) }
        }
    }

    /// The decoder's one code path, over contiguous bytes.
    @usableFromInline
    mutating func decode(contiguous chunk: UnsafeBufferPointer<UInt8>, _ handler: (Event) -> Void) {
        statistics.bytesReceived += chunk.count
        var index = 0
        while index < chunk.count {
            if candidateCount == 0 {
                guard let stx = chunk[index...].firstIndex(of: startByte) else {
                    skipArriving(chunk.count - index, handler)
                    return
                }
                skipArriving(stx - index, handler)
                index = stx
            }
            let wanted = bytesUntilNextDecision() - candidateCount
            let end = min(index + wanted, chunk.count)
            append(UnsafeBufferPointer(rebasing: chunk[index..<end]))
            index = end
            settle(handler)
        }
    }

    /// Whether bytes are held for a frame that has not completed yet.
    public var hasIncompleteFrame: Bool { candidateCount > 0 }

    /// Cuts off what is held: a frame the input ended inside, or one whose bytes stopped
    /// coming on a live link, is reported as truncated, the bytes after its STX are scanned
    /// again (frames among them are reported), and pending noise is reported. Decoding may
    /// go on afterwards; offsets continue.
    public mutating func finish(_ handler: (Event) -> Void) {
        while candidateCount > 0 {
            let expected = candidateCount >= FrameProfile.headerLength ? declaredFrameLength : nil
            statistics.truncatedFrames += 1
            reject(reason: .truncated(expectedLength: expected), length: candidateCount, handler)
            settle(handler)
        }
        flushNoise(handler)
    }

    /// Forgets everything, for a new connection: buffered bytes (wiped), offsets, statistics.
    public mutating func reset() {
        consume(candidateCount)
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

    private var candidateCount: Int { end - start }
    private var declaredDataLength: Int { Int(buffer[start + 3]) << 8 | Int(buffer[start + 4]) }
    private var declaredFrameLength: Int { declaredDataLength + FrameProfile.overhead }

    /// How long `candidate` must be before anything can be decided about it.
    private func bytesUntilNextDecision() -> Int {
        candidateCount < FrameProfile.headerLength ? FrameProfile.headerLength : declaredFrameLength
    }

    /// Decides about the candidate as far as its bytes allow, rescanning after rejections.
    private mutating func settle(_ handler: (Event) -> Void) {
        while candidateCount > 0 {
            if buffer[start] != startByte {
                let skipped = (buffer[start..<end].firstIndex(of: startByte) ?? end) - start
                let noiseStart = candidateOffset
                consume(skipped)
                noteNoise(noiseStart..<candidateOffset, handler)
                continue
            }
            guard candidateCount >= FrameProfile.headerLength else { return }
            let dataLength = declaredDataLength
            guard dataLength <= maximumDataLength else {
                statistics.lengthErrors += 1
                reject(
                    reason: .lengthOutOfRange(declared: dataLength, maximum: maximumDataLength),
                    length: FrameProfile.headerLength, handler)
                continue
            }
            let frameLength = declaredFrameLength
            guard candidateCount >= frameLength else { return }
            // The checksum covers MAIN through the last DATA byte: buffer[start + 1 ..< checksumAt].
            let checksumAt = start + frameLength - 2
            let computed = checksums.checksum(
                registerAtStart: register(at: start + 1), registerAtEnd: register(at: checksumAt), length: frameLength - 3)
            let received = UInt16(buffer[checksumAt], buffer[checksumAt + 1], order: checksumByteOrder)
            guard computed == received else {
                statistics.checksumErrors += 1
                reject(reason: .checksumMismatch(computed: computed, received: received), length: frameLength, handler)
                continue
            }
            flushNoise(handler)
            let frame = Frame(
                main: buffer[start + 1], sub: buffer[start + 2],
                data: Array(buffer[(start + FrameProfile.headerLength)..<checksumAt]))
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
            let unreported = max(candidateOffset, reportedThrough)
            handler(.damage(FrameDamage(offset: unreported, length: end - unreported, reason: reason)))
            reportedThrough = end
        }
        consume(1)
    }

    /// Skips `count` non-STX bytes that arrived outside any candidate.
    private mutating func skipArriving(_ count: Int, _ handler: (Event) -> Void) {
        guard count > 0 else { return }
        let noiseStart = candidateOffset
        candidateOffset += count
        noteNoise(noiseStart..<candidateOffset, handler)
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

    /// Appends bytes to the candidate, first moving it to the front when they do not fit.
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        if end + bytes.count > bufferLimit {
            compact()
        }
        let at = end
        buffer.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, let source = bytes.baseAddress else { return }
            (base + at).update(from: source, count: bytes.count)
        }
        end += bytes.count
    }

    /// The CRC register before `buffer[position]`, for `start <= position <= end`: from the
    /// checkpoint at or before it, or from `start` when that is nearer, after feeding the
    /// bytes up to `position` if they have not been yet.
    private mutating func register(at position: Int) -> UInt16 {
        if position >= fed {
            let (from, checksums, register) = (fed, checksums, fedRegister)
            fedRegister = buffer.withUnsafeBufferPointer { buffer in
                checkpoints.withUnsafeMutableBufferPointer { checkpoints in
                    guard let base = checkpoints.baseAddress else { return register }
                    return checksums.feed(
                        UnsafeBufferPointer(rebasing: buffer[from..<position]), at: from, continuing: register,
                        checkpoints: base)
                }
            }
            fed = position
            return fedRegister
        }
        let checkpoint = position - position % CRC16RangeChecksum.checkpointInterval
        let (origin, register) =
            checkpoint <= start
            ? (start, startRegister) : (checkpoint, checkpoints[checkpoint / CRC16RangeChecksum.checkpointInterval])
        return buffer.withUnsafeBufferPointer { buffer in
            checksums.advance(register, over: UnsafeBufferPointer(rebasing: buffer[origin..<position]))
        }
    }

    /// Moves the candidate towards the front by a multiple of the checkpoint interval, so its
    /// checkpoints move with it by whole entries and stay valid, wiping what it leaves
    /// behind. A candidate is at most one maximum-size frame in a buffer of two, so each byte
    /// moves at most once for every maximum-size frame consumed before it.
    private mutating func compact() {
        let interval = CRC16RangeChecksum.checkpointInterval
        let shift = start - start % interval
        guard shift > 0 else { return }
        let (from, through, fedThrough) = (start, end, fed)
        buffer.withUnsafeMutableBufferPointer { buffer in
            Self.move(buffer, range: from..<through, by: shift)
        }
        checkpoints.withUnsafeMutableBufferPointer { checkpoints in
            Self.move(checkpoints, range: (from / interval)..<(fedThrough / interval + 1), by: shift / interval)
        }
        start -= shift
        end -= shift
        fed -= shift
    }

    /// Moves `range` of `buffer` down by `shift` elements and zeros the elements it vacates.
    private static func move<Element: FixedWidthInteger>(
        _ buffer: UnsafeMutableBufferPointer<Element>, range: Range<Int>, by shift: Int
    ) {
        guard let base = buffer.baseAddress else { return }
        (base + range.lowerBound - shift).update(from: base + range.lowerBound, count: range.count)
        let vacated = max(range.lowerBound, range.upperBound - shift)..<range.upperBound
        (base + vacated.lowerBound).update(repeating: 0, count: vacated.count)
    }

    /// Drops the first `count` candidate bytes, wiping them and the checkpoints no longer
    /// needed.
    private mutating func consume(_ count: Int) {
        guard count > 0 else { return }
        let interval = CRC16RangeChecksum.checkpointInterval
        let range = start..<(start + count)
        startRegister = range.upperBound == end ? 0 : register(at: range.upperBound)
        buffer.withUnsafeMutableBufferPointer { $0[range].update(repeating: 0) }
        start += count
        candidateOffset += count
        if start == end {
            let used = 0...(fed / interval)
            checkpoints.withUnsafeMutableBufferPointer { $0[used].update(repeating: 0) }
            start = 0
            end = 0
            fed = 0
            fedRegister = 0
            startRegister = 0
        } else {
            let passed = (range.lowerBound / interval)..<(start / interval)
            checkpoints.withUnsafeMutableBufferPointer { $0[passed].update(repeating: 0) }
        }
    }

    /// Bytes held for an incomplete candidate (for tests of the memory bound).
    var bufferedByteCount: Int { candidateCount }
    /// The buffer's allocated size (for tests that it never grows).
    var bufferCapacity: Int { buffer.capacity }
}
