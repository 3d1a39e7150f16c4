import ReaderProtocol

/// Turns the reader's frames into TX notifications of at most ATT MTU − 3 bytes, and applies
/// the scenario's notification and frame faults: line noise before each frame, a numbered
/// notification corrupted or dropped, a numbered frame cut, corrupted, duplicated, or with
/// a notification dropped, duplicated or moved. Notifications are numbered from 1 over the
/// reader's lifetime, noise included; frames likewise, responses and events alike.
struct NotificationEmitter: Sendable {
    /// Line noise: never STX (`02`), so it cannot start a frame.
    private static let noisePattern: [UInt8] = [0x55, 0xAA, 0xFF, 0x00]

    private let scenario: EmulatorScenario
    /// Notifications produced so far (sent or dropped).
    private var count = 0
    /// Frames produced so far.
    private var frames = 0
    /// A one-notification frame waiting to change places with the next notification.
    private var movedNotification: [UInt8]?

    init(scenario: EmulatorScenario) {
        self.scenario = scenario
    }

    /// Line noise holding a false STX whose header (MAIN 00, SUB 07) declares 272 bytes.
    static let falseStart: [UInt8] = [0xFF, 0x02, 0x00, 0x07, 0x01, 0x10]

    /// The notifications that carry one frame (or the part of one that is sent), preceded
    /// by the noise the scenario puts before it: line noise (in notifications of its own),
    /// a false STX split across two notifications, or one in the frame's first notification.
    mutating func notifications(forFrame bytes: [UInt8], maximumLength: Int) -> [[UInt8]] {
        frames += 1
        var frame = bytes
        if frames == scenario.cutFrame { frame = Array(frame.prefix(max(1, frame.count / 2))) }
        if frames == scenario.corruptFrame, let last = frame.indices.last { frame[last] ^= 0xFF }
        let lineNoise = (0..<scenario.noiseLength).map { Self.noisePattern[$0 % Self.noisePattern.count] }
        var before = numbered(split(lineNoise, maximumLength))
        if frames == scenario.splitFalseStartBefore {
            before += numbered([Array(Self.falseStart.prefix(3)), Array(Self.falseStart.dropFirst(3))])
        }
        let noise = frames == scenario.falseStartBefore ? Self.falseStart : []
        var packets = numbered(split(noise + frame, maximumLength))
        if frames == scenario.dropInFrame, !packets.isEmpty { packets.removeLast() }
        if frames == scenario.duplicateInFrame, let first = packets.first { packets.insert(first, at: 1) }
        if frames == scenario.duplicateFrame { packets += packets }
        if frames == scenario.reorderFrame {
            if packets.count >= 2 {
                packets.swapAt(0, 1)
            } else if let only = packets.first {
                movedNotification = only
                packets.removeAll()
            }
        } else if let moved = movedNotification, !packets.isEmpty {
            movedNotification = nil
            packets.insert(moved, at: 1)
        }
        before += packets
        return before
    }

    private func split(_ bytes: [UInt8], _ maximumLength: Int) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: maximumLength).map { Array(bytes[$0..<min($0 + maximumLength, bytes.count)]) }
    }

    /// Counts the packets as notifications and applies the numbered notification faults.
    private mutating func numbered(_ packets: [[UInt8]]) -> [[UInt8]] {
        var sent: [[UInt8]] = []
        for var packet in packets {
            count += 1
            if count == scenario.dropNotification { continue }
            if count == scenario.corruptNotification, let last = packet.indices.last { packet[last] ^= 0xFF }
            sent.append(packet)
        }
        return sent
    }
}
