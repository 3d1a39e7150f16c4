/// Turns the reader's frames into TX notifications of at most ATT MTU − 3 bytes, and applies
/// the scenario's notification faults: line noise before each frame, one notification
/// corrupted (its last byte inverted) or dropped. Notifications are numbered from 1 over
/// the reader's lifetime, noise included.
struct NotificationEmitter: Sendable {
    /// Line noise: never STX (`02`), so it cannot start a frame.
    private static let noisePattern: [UInt8] = [0x55, 0xAA, 0xFF, 0x00]

    private let noiseLength: Int
    private let corrupt: Int?
    private let drop: Int?
    /// Notifications produced so far (sent or dropped).
    private var count = 0

    init(scenario: EmulatorScenario) {
        noiseLength = scenario.noiseLength
        corrupt = scenario.corruptNotification
        drop = scenario.dropNotification
    }

    /// The notifications that carry `bytes` (one frame, or the part of one that is sent),
    /// preceded by noise (in notifications of its own) if the scenario asks for it.
    mutating func notifications(for bytes: [UInt8], maximumLength: Int) -> [[UInt8]] {
        func split(_ bytes: [UInt8]) -> [[UInt8]] {
            stride(from: 0, to: bytes.count, by: maximumLength).map { Array(bytes[$0..<min($0 + maximumLength, bytes.count)]) }
        }
        let noise = (0..<noiseLength).map { Self.noisePattern[$0 % Self.noisePattern.count] }
        let packets = split(noise) + split(bytes)
        var sent: [[UInt8]] = []
        for var packet in packets {
            count += 1
            if count == drop { continue }
            if count == corrupt, let last = packet.indices.last { packet[last] ^= 0xFF }
            sent.append(packet)
        }
        return sent
    }
}
