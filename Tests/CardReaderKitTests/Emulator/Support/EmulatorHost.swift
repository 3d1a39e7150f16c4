import BLETransport
import CardReaderKit
import CardReaderKitTesting
import Testing

/// A host driving an emulated reader through the in-process link, as CardReaderKit does:
/// commands are encoded and written in packets of MTU − 3 bytes; notifications are
/// reassembled with `FrameDecoder`. Every notification is checked against the MTU.
///
/// Reads wait for the reader without a timeout of their own: every suite using this runs
/// under a `.timeLimit`, which bounds a reader that never answers.
struct EmulatorHost {
    let clock: ManualClock
    let reader: EmulatedReader
    let link: any ReaderLink
    let mtu: Int
    private var iterator: any AsyncIteratorProtocol<LinkInbound, Never>
    private var decoder = FrameDecoder()
    private var frames: [Frame] = []
    /// Damaged regions the host's decoder reported.
    private(set) var damage: [FrameDamage] = []
    /// Every notification received, in order.
    private(set) var notifications: [[UInt8]] = []
    /// Why the reader dropped the link, once it has.
    private(set) var dropReason: LinkError?
    private var ended = false

    init(
        card: EmulatedCard? = .visaTest, scenario: [String] = [], mtu: Int = 23,
        configuration: EmulatedReaderConfiguration = EmulatedReaderConfiguration()
    ) async throws {
        let clock = ManualClock()
        let reader = EmulatedReader(
            card: card, scenario: try EmulatorScenario(parsing: scenario), configuration: configuration, clock: clock)
        try await self.init(connectingTo: reader, clock: clock, mtu: mtu)
    }

    /// Another connection to an existing reader.
    init(connectingTo reader: EmulatedReader, clock: ManualClock, mtu: Int = 23) async throws {
        self.clock = clock
        self.reader = reader
        self.mtu = mtu
        link = try await EmulatedReaderConnector(reader: reader, mtu: mtu).connect()
        iterator = link.inbound.makeAsyncIterator()
    }

    /// Encodes `command` and writes it in packets of MTU − 3 bytes.
    func send(_ command: ReaderCommand) async throws {
        try await write(try command.frame.encoded())
    }

    /// Writes `bytes` in packets of MTU − 3 bytes.
    func write(_ bytes: [UInt8]) async throws {
        let size = await link.maximumWriteLength
        for start in stride(from: 0, to: bytes.count, by: size) {
            try await link.write(Array(bytes[start..<min(start + size, bytes.count)]))
        }
    }

    /// The next whole frame from the reader, or nil once the link has ended.
    mutating func nextFrame() async -> Frame? {
        while frames.isEmpty {
            guard !ended, let item = await iterator.next(isolation: #isolation) else {
                ended = true
                var trailing: [FrameDamage] = []
                decoder.finish { if case .damage(let region) = $0 { trailing.append(region) } }
                damage += trailing
                return nil
            }
            switch item {
            case .notification(let bytes):
                #expect(bytes.count <= mtu - 3, "notification of \(bytes.count) bytes exceeds MTU − 3")
                notifications.append(bytes)
                var decoded: [Frame] = []
                var damaged: [FrameDamage] = []
                decoder.decode(bytes) { event in
                    switch event {
                    case .frame(let frame, _): decoded.append(frame)
                    case .damage(let region): damaged.append(region)
                    }
                }
                frames += decoded
                damage += damaged
            case .dropped(let reason):
                dropReason = reason
            }
        }
        return frames.removeFirst()
    }

    /// The next frame, decoded as a response or event.
    mutating func nextMessage() async throws -> ReaderMessage {
        let frame = try #require(await nextFrame(), "the link ended before a frame arrived")
        return try ReaderMessage(frame: frame, direction: .readerToHost)
    }

    /// The next frame, which must be a response.
    mutating func nextResponse() async throws -> ReaderResponse {
        let message = try await nextMessage()
        guard case .response(let response) = message else {
            Issue.record("expected a response, got \(message)")
            throw HostError.unexpectedMessage
        }
        return response
    }

    /// The next frame, which must be an event.
    mutating func nextEvent() async throws -> ReaderEvent {
        let message = try await nextMessage()
        guard case .event(let event) = message else {
            Issue.record("expected an event, got \(message)")
            throw HostError.unexpectedMessage
        }
        return event
    }

    /// Sends `command` and returns its response.
    mutating func exchange(_ command: ReaderCommand) async throws -> ReaderResponse {
        try await send(command)
        return try await nextResponse()
    }

    /// Sends an APDU (the card must be powered) and returns the card's answer.
    mutating func transmit(_ apdu: CommandAPDU) async throws -> ResponseAPDU {
        let response = try await exchange(.iccAPDU(apdu))
        guard response.status == .success, case .apdu(let answer) = response.body else {
            Issue.record("ICC APDU answered \(response.status)")
            throw HostError.unexpectedMessage
        }
        return answer
    }

    /// Reads until the link ends; returns the reader's drop reason (nil if none).
    mutating func waitForLinkEnd() async -> LinkError? {
        while await nextFrame() != nil {}
        return dropReason
    }

    enum HostError: Error {
        case unexpectedMessage
    }
}

/// Bytes from hex written in a test ("02 C0 01" or "02c001"), read by `HexText`: a typo
/// stops the run at once instead of becoming a byte.
func hex(_ text: String) -> [UInt8] {
    do {
        return try HexText.bytes(text)
    } catch {
        preconditionFailure("hex in a test: '\(text)': \(error)")
    }
}
