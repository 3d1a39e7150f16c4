import BLETransport
import Testing
import CardReaderKit
import CardReaderKitTesting
import ReaderProtocol

/// Every `CardReaderError` case, produced against the emulated reader: by a scenario, a
/// card, or the host's own misuse (Docs/reliability.md, "Every error"). Statuses and status
/// words are the reader documentation's (§5) and ISO 7816-4's.
@Suite(.timeLimit(.minutes(1)))
struct EveryErrorTests {
    let clock = ManualClock()

    func reader(_ scenario: [String] = [], card: EmulatedCard? = .visaTest) async throws -> (CardReader, EmulatedReader) {
        let emulator = EmulatedReader(card: card, scenario: try EmulatorScenario(parsing: scenario), clock: clock)
        let reader = CardReader(connector: EmulatedReaderConnector(reader: emulator), clock: clock)
        try await reader.connect()
        return (reader, emulator)
    }

    func select() throws -> CommandAPDU { try .select(name: Array("2PAY.SYS.DDF01".utf8)) }

    @Test func notConnected() async throws {
        let reader = CardReader(connector: EmulatedReaderConnector(reader: EmulatedReader()), clock: clock)
        await #expect(throws: CardReaderError.notConnected) { try await reader.info() }
    }

    /// The reader accepts connections only after 10 s; the host waits 2 s.
    @Test func connectionTimedOut() async throws {
        let emulator = EmulatedReader(scenario: try EmulatorScenario(parsing: ["slow-connect=10"]), clock: clock)
        let reader = CardReader(connector: EmulatedReaderConnector(reader: emulator), clock: clock)
        let connecting = Task { try await reader.connect(timeout: .seconds(2)) }
        try await clock.waitForSleepers(dueNoSoonerThan: .seconds(2), dueWithin: .seconds(2))
        clock.advance(by: .seconds(2))
        await #expect(throws: CardReaderError.connectionTimedOut(reader: "emulated VPOS3356", after: .seconds(2))) {
            try await connecting.value
        }
    }

    /// One central at a time (§1): a second host is refused.
    @Test func connectionFailed() async throws {
        let (_, emulator) = try await reader()
        let second = CardReader(connector: EmulatedReaderConnector(reader: emulator), clock: clock)
        do throws(CardReaderError) {
            try await second.connect()
            Issue.record("a second central was accepted")
        } catch {
            guard error.code == .connectionFailed, let linkError = error.link else {
                Issue.record("expected connectionFailed, got \(error)")
                return
            }
            #expect(linkError.code.rawValue == "connection-refused")
        }
    }

    @Test func linkLost() async throws {
        let (reader, _) = try await reader(["drop-mid-frame=1"])
        await #expect(throws: CardReaderError.linkLost(
            LinkError(.remoteDisconnected, "the reader disconnected"))) {
            try await reader.info()
        }
    }

    @Test func writeFailed() async throws {
        let (reader, _) = try await reader(["refuse-write=1"])
        await #expect(throws: CardReaderError.writeFailed(
            LinkError(.writeRefused, "the emulated reader refused the write (scenario)"))) {
            try await reader.info()
        }
    }

    @Test func readerTimedOut() async throws {
        let (reader, _) = try await reader(["silent=1"])
        let info = Task { try await reader.info() }
        try await clock.waitForSleepers(dueNoSoonerThan: .milliseconds(1500), dueWithin: .milliseconds(1500))
        clock.advance(by: .milliseconds(1500))
        await #expect(throws: CardReaderError.readerTimedOut(.getInfo, after: .milliseconds(1500))) { try await info.value }
    }

    /// Every command is swallowed, CANCEL included: the next command cannot tell answers apart.
    @Test func readerNotResponding() async throws {
        let (reader, _) = try await reader(["silent"])
        let first = Task { try await reader.info() }
        try await clock.waitForSleepers(dueNoSoonerThan: .milliseconds(1500), dueWithin: .milliseconds(1500))
        clock.advance(by: .milliseconds(1500))
        _ = await first.result
        let second = Task { try await reader.info() }
        try await clock.waitForSleepers(dueNoSoonerThan: .milliseconds(1500), dueWithin: .milliseconds(1500))
        clock.advance(by: .milliseconds(1500))
        await #expect(throws: CardReaderError.readerNotResponding) { try await second.value }
    }

    @Test func cancelled() async throws {
        let (reader, _) = try await reader(["no-swipe"])
        let swipe = Task { try await reader.readMagneticStripe() }
        try await clock.waitForSleepers(dueWithin: .seconds(30))
        swipe.cancel()
        await #expect(throws: CardReaderError.cancelled) { try await swipe.value }
    }

    @Test func cardholderTimeout() async throws {
        let (reader, _) = try await reader(["no-swipe"])
        let swipe = Task { try await reader.readMagneticStripe(timeout: .seconds(2)) }
        try await clock.waitForSleepers(dueWithin: .seconds(2))
        clock.advance(by: .seconds(2))
        await #expect(throws: CardReaderError.cardholderTimeout(.readMagneticStripe)) { try await swipe.value }
    }

    @Test func badSwipe() async throws {
        let (reader, _) = try await reader(["bad-swipe"])
        await #expect(throws: CardReaderError.badSwipe) { try await reader.readMagneticStripe() }
    }

    @Test func noCard() async throws {
        let (reader, _) = try await reader()
        await #expect(throws: CardReaderError.noCard) { try await reader.powerOnCard(waitingForInsertion: .zero) }
    }

    @Test func cardRemoved() async throws {
        let (reader, _) = try await reader(["card-inserted", "remove-card-during-apdu"])
        _ = try await reader.powerOnCard()
        await #expect(throws: CardReaderError.cardRemoved) { try await reader.transmit(try select()) }
    }

    @Test func readerBusy() async throws {
        let (reader, _) = try await reader(["busy"])
        await #expect(throws: CardReaderError.readerBusy(.getInfo)) { try await reader.info() }
    }

    @Test func batteryTooLow() async throws {
        let (reader, _) = try await reader(["low-battery"])
        await #expect(throws: CardReaderError.batteryTooLow(.readMagneticStripe)) { try await reader.readMagneticStripe() }
    }

    /// A card with no chip application gives no ATR (§5, `09`).
    @Test func cardNotResponding() async throws {
        let (reader, _) = try await reader(["card-inserted"], card: .visaSwipeOnly)
        await #expect(throws: CardReaderError.cardNotResponding) { try await reader.powerOnCard() }
    }

    @Test func cardNotPowered() async throws {
        let (reader, _) = try await reader(["card-inserted"])
        await #expect(throws: CardReaderError.cardNotPowered) { try await reader.transmit(try select()) }
    }

    @Test func readerRejected() async throws {
        let (reader, _) = try await reader(["reject=C107:07"])
        await #expect(throws: CardReaderError.readerRejected(.readMagneticStripe, .invalidParameter)) {
            try await reader.readMagneticStripe()
        }
    }

    /// Status 02 answers the host's CANCEL (§5); sent unasked, it is the reader refusing the
    /// command, not a cancellation of this host's.
    @Test func anUnaskedCancelledStatusIsARefusalNotACancellation() async throws {
        let (reader, _) = try await reader(["reject=C107:02"])
        do throws(CardReaderError) {
            _ = try await reader.readMagneticStripe()
            Issue.record("the swipe succeeded")
        } catch {
            #expect(error == .readerRejected(.readMagneticStripe, .cancelled))
            #expect(error.code != .cancelled)
            #expect(error.description.contains("though this host did not cancel it"))
        }
    }

    @Test func malformedResponse() async throws {
        let (reader, _) = try await reader(["malformed-answer=1"])
        do throws(CardReaderError) {
            _ = try await reader.info()
            Issue.record("a malformed answer was accepted")
        } catch {
            guard error.code == .malformedResponse else {
                Issue.record("expected malformedResponse, got \(error)")
                return
            }
            #expect(error.command == .getInfo)
        }
    }

    /// An extended-length APDU (more than 255 data bytes) never reaches the reader.
    @Test func invalidRequest() async throws {
        let (reader, _) = try await reader(["card-inserted"])
        _ = try await reader.powerOnCard()
        let extended = try CommandAPDU(
            cla: 0x00, ins: 0xD6, p1: 0, p2: 0, data: SensitiveBytes([UInt8](repeating: 0, count: 300)))
        do throws(CardReaderError) {
            _ = try await reader.transmit(extended)
            Issue.record("an extended APDU was sent")
        } catch {
            guard error.code == .invalidRequest else {
                Issue.record("expected invalidRequest, got \(error)")
                return
            }
        }
    }

    /// The card refuses GET PROCESSING OPTIONS (INS A8) with 6985, conditions of use not satisfied.
    @Test func cardRefused() async throws {
        let (reader, _) = try await reader(["card-inserted", "card-sw=A8:6985"])
        _ = try await reader.powerOnCard()
        await #expect(throws: CardReaderError.cardRefused(step: "GET PROCESSING OPTIONS", StatusWord(0x6985))) {
            try await reader.readEMVCard()
        }
    }

    /// READ RECORD (INS B2) answers 9000 with no record: the card's data cannot be read.
    @Test func invalidCardData() async throws {
        let (reader, _) = try await reader(["card-inserted", "card-sw=B2:9000"])
        _ = try await reader.powerOnCard()
        do throws(CardReaderError) {
            _ = try await reader.readEMVCard()
            Issue.record("an EMV read without records succeeded")
        } catch {
            guard error.code == .invalidCardData else {
                Issue.record("expected invalidCardData, got \(error)")
                return
            }
        }
    }

    /// No application selects (SELECT answers 6A82 to each): the error shows the card's
    /// status word and its ISO 7816-4 meaning, not only that nothing was selected.
    @Test func noSelectableApplicationShowsTheStatusWord() async throws {
        let (reader, _) = try await reader(["card-inserted", "card-sw=A4:6A82"])
        _ = try await reader.powerOnCard()
        do throws(CardReaderError) {
            _ = try await reader.readEMVCard()
            Issue.record("an EMV read with no selectable application succeeded")
        } catch {
            #expect(error.code == .invalidCardData)
            #expect(error.description.contains("6A82 (file or application not found)"), "\(error)")
        }
    }
}
