import Testing
import CardReaderKit
import CardReaderKitTesting
import ReaderProtocol

/// A valid answer behind line damage is delivered before its command's deadline, and the
/// next command works. The damaged byte strings are the ones seen from readers in the
/// field: an MCU restart mid-frame (`02 C0 01 00 40` and 3 bytes: a header declaring 64
/// bytes that never come) and line noise holding a false STX (`FF 02 00 07 01 10`: a
/// header declaring 272 bytes). Without a cut-off, each makes the decoder wait for bytes a
/// live link never sends, and GET INFO times out at 0.5 s + 1 s.
@Suite(.timeLimit(.minutes(1)))
struct LineDamageRecoveryTests {
    static let info = ReaderInfo(model: "VPOS3356", serialNumber: "A1", firmwareVersion: "2.4.1", batteryPercent: 90)
    static let restartedFrameStart: [UInt8] = [0x02, 0xC0, 0x01, 0x00, 0x40, 0x00, 0x01, 0x08]
    static let falseStart: [UInt8] = [0xFF, 0x02, 0x00, 0x07, 0x01, 0x10]
    static let getInfoDeadline = Duration.milliseconds(1500)
    static let incompleteFrameTimeout = Duration.milliseconds(250)

    static func getInfoAnswer() throws -> [UInt8] {
        try ReaderResponse(code: .getInfo, status: .success, body: .info(info)).frame.encoded()
    }

    /// GET INFO is sent; the reader answers with `damage` and the answer in one notification
    /// (MTU 247), which the host has handled when this returns.
    func infoBehind(_ damage: [UInt8], configuration: CardReader.Configuration = .init()) async throws
        -> (ScriptedReader, ManualClock, CardReader, Task<ReaderInfo, any Error>)
    {
        let scripted = ScriptedReader(mtu: 247)
        let clock = ManualClock()
        let reader = CardReader(connector: scripted.connector, configuration: configuration, clock: clock)
        try await reader.connect()
        let info = Task { try await reader.info() }
        #expect(try await scripted.nextCommand() == .getInfo)
        await scripted.sendRaw(damage + (try Self.getInfoAnswer()))
        try await scripted.waitUntilHostHasHandledEverything()
        return (scripted, clock, reader, info)
    }

    /// Once the host has handled the notification, it holds an incomplete frame; 250 ms of
    /// quiet cut it off and the answer comes out.
    @Test(arguments: [restartedFrameStart, falseStart])
    func anAnswerBehindDamageArrivesAfterTheIncompleteFrameTimeout(damage: [UInt8]) async throws {
        let (scripted, clock, reader, info) = try await infoBehind(damage)
        try await clock.waitForSleepers(dueWithin: Self.incompleteFrameTimeout)
        clock.advance(by: Self.incompleteFrameTimeout)
        #expect(try await info.value == Self.info)

        // The session goes on: the next command gets its own answer at once.
        let next = Task { try await reader.info() }
        #expect(try await scripted.nextCommand() == .getInfo)
        try await scripted.answer(.getInfo, .success, .info(ReaderInfo(model: "NEXT")))
        #expect(try await next.value.model == "NEXT")
    }

    /// The same bytes with the cut-off pushed past the deadline: the answer is lost and GET
    /// INFO times out, which is the defect the cut-off removes.
    @Test(arguments: [restartedFrameStart, falseStart])
    func withoutTheCutOffTheAnswerIsLost(damage: [UInt8]) async throws {
        let (_, clock, _, info) = try await infoBehind(damage, configuration: .init(incompleteFrameTimeout: .seconds(10)))
        try await clock.waitForSleepers(dueWithin: Self.getInfoDeadline)
        clock.advance(by: Self.getInfoDeadline)
        await #expect(throws: CardReaderError.readerTimedOut(.getInfo, after: Self.getInfoDeadline)) {
            try await info.value
        }
    }

    /// A frame whose notifications come less than 250 ms apart is never cut off, and card
    /// data that holds a whole valid frame (here the card-removed event, 02 E0 02 00 00 6E 4A)
    /// stays card data: the APDU answer arrives intact and no event is reported.
    @Test func aSlowFrameIsNotCutOffAndItsCardDataIsNeverTakenForAFrame() async throws {
        let scripted = ScriptedReader(mtu: 23)
        let clock = ManualClock()
        let reader = CardReader(connector: scripted.connector, clock: clock)
        try await reader.connect()
        var events = await reader.events().makeAsyncIterator()
        let embeddedEvent: [UInt8] = [0x02, 0xE0, 0x02, 0x00, 0x00, 0x6E, 0x4A]
        let cardData = [0x6F, 0x09] + embeddedEvent + [0x90, 0x00]
        let apdu = Task { try await reader.transmit(try .select(name: Array("2PAY.SYS.DDF01".utf8)), options: .raw) }
        #expect(try await scripted.nextCommand() == .iccAPDU(try .select(name: Array("2PAY.SYS.DDF01".utf8))))
        let answer = try ReaderResponse(
            code: .iccAPDU, status: .success, body: .apdu(try ResponseAPDU(parsing: cardData))
        ).frame.encoded()
        for start in stride(from: 0, to: answer.count, by: 6) {
            await scripted.sendRaw(Array(answer[start..<min(start + 6, answer.count)]))
            try await scripted.waitUntilHostHasHandledEverything()
            if start + 6 < answer.count {
                // Bytes keep coming 200 ms apart: within the 250 ms an incomplete frame may wait.
                try await clock.waitForSleepers(dueWithin: Self.incompleteFrameTimeout)
                clock.advance(by: .milliseconds(200))
            }
        }
        let response = try await apdu.value
        #expect(response.data.revealed() == [0x6F, 0x09] + embeddedEvent)
        #expect(response.statusWord == .success)
        // The next event the host reports is the one the reader sends next, not the embedded one.
        try await scripted.send(ReaderEvent.cardInserted.frame)
        #expect(await events.next() == .cardInserted)
    }
}

/// The damage scenarios of the emulated reader, end to end at both MTUs: each answer
/// arrives within its command's own deadline (a failure is a `readerTimedOut`), and the
/// commands after it work. The reader and the emulated reader share a manual clock, which
/// steps through the 250 ms incomplete-frame cut-off and the reader's 80 ms restart, each
/// step once the host has handled all the reader sent, never as far as a deadline (1.5 s
/// and more).
@Suite(.timeLimit(.minutes(1)))
struct LineDamageScenarioTests {
    struct Bench {
        let clock = ManualClock()
        let control = ConnectorControl()
        let emulator: EmulatedReader
        let reader: CardReader

        init(_ scenario: String, mtu: Int) async throws {
            emulator = EmulatedReader(card: .visaTest, scenario: try EmulatorScenario(parsing: [scenario]), clock: clock)
            reader = CardReader(
                connector: ControlledConnector(base: EmulatedReaderConnector(reader: emulator, mtu: mtu), control: control),
                clock: clock)
            try await reader.connect()
        }

        /// `operation`'s result, the clock stepping as the line damage needs.
        func run<Value: Sendable>(_ operation: @Sendable (CardReader) async throws -> Value) async throws -> Value {
            let reader = reader
            return try await clock.advancing(
                throughSleepsWithin: .milliseconds(250), onceHostHasHandled: emulator, control: control
            ) { try await operation(reader) }
        }
    }

    @Test(arguments: ["false-stx", "false-stx-split", "restart-mid-frame"], [23, 247])
    func getInfoAndTheNextCommandsSucceed(scenario: String, mtu: Int) async throws {
        let bench = try await Bench(scenario, mtu: mtu)
        #expect(try await bench.run { try await $0.info().model } == "VPOS3356")
        #expect(try await bench.run { try await $0.readMagneticStripe().track2.track?.primaryAccountNumber.revealed() } == "4111111111111111")
        #expect(try await bench.run { try await $0.info().model } == "VPOS3356")
        await bench.reader.disconnect()
    }

    /// The damage lands inside a swipe answer (the 2nd response), 101 bytes over 6 notifications at MTU 23.
    @Test(arguments: ["false-stx=2", "false-stx-split=2", "restart-mid-frame=2"], [23, 247])
    func aSwipeAnswerBehindDamageArrives(scenario: String, mtu: Int) async throws {
        let bench = try await Bench(scenario, mtu: mtu)
        #expect(try await bench.run { try await $0.info().model } == "VPOS3356")
        #expect(try await bench.run { try await $0.readMagneticStripe().track1.track?.primaryAccountNumber.revealed() } == "4111111111111111")
        #expect(try await bench.run { try await $0.cardSlotState() } == .noCard)
        await bench.reader.disconnect()
    }
}
