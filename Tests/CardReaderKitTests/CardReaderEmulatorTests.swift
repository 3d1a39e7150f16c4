import BLETransport
import CardReaderKit
import CardReaderKitTesting
import ReaderProtocol
import Testing

/// CardReader driving the emulated reader end to end, at ATT MTU 23 and 247, under one
/// ManualClock: no test sleeps. Expected values are the built-in test cards'
/// (Fixtures/cards: Visa 4111 1111 1111 1111 / 2512 / A0000000031010, Mastercard
/// 5555 5555 5555 4444 / 2712 / A0000000041010) and the reader documentation's statuses.
@Suite(.timeLimit(.minutes(1)))
struct CardReaderEmulatorTests {
    static let mtus = [23, 247]

    struct Bench {
        let clock = ManualClock()
        let emulator: EmulatedReader
        let reader: CardReader

        init(card: EmulatedCard? = .visaTest, scenario: [String] = [], mtu: Int) async throws {
            emulator = EmulatedReader(card: card, scenario: try EmulatorScenario(parsing: scenario), clock: clock)
            reader = CardReader(connector: EmulatedReaderConnector(reader: emulator, mtu: mtu), clock: clock)
            try await reader.connect()
        }

        /// Lets `duration` pass once a timer due within it is set (the emulator's or the host's).
        func pass(_ duration: Duration) async throws {
            try await clock.waitForSleepers(dueWithin: duration)
            clock.advance(by: duration)
        }
    }

    @Test(arguments: mtus) func info(mtu: Int) async throws {
        let bench = try await Bench(mtu: mtu)
        let info = try await bench.reader.info()
        #expect(info.model == "VPOS3356")
        #expect(info.capabilities?.contains(.magneticStripe) == true)
    }

    @Test(arguments: mtus) func swipeAfterTwoSeconds(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["swipe-after=2"], mtu: mtu)
        let swipe = Task { try await bench.reader.readMagneticStripe(timeout: .seconds(30)) }
        try await bench.pass(.seconds(2))
        let tracks = try await swipe.value
        #expect(tracks.track1.track?.primaryAccountNumber.revealed() == "4111111111111111")
        #expect(tracks.track2.track?.expiry?.yymm == "2512")
        #expect(!"\(tracks)".contains("4111111111111111"))
    }

    /// §3/§8: nobody swipes; the reader answers 01 when its 30 s are up.
    @Test(arguments: mtus) func noSwipeIsACardholderTimeout(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["no-swipe"], mtu: mtu)
        let swipe = Task { try await bench.reader.readMagneticStripe() }
        try await bench.pass(.seconds(30))
        await #expect(throws: CardReaderError.cardholderTimeout(.readMagneticStripe)) { try await swipe.value }
    }

    @Test(arguments: mtus) func badSwipe(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["bad-swipe"], mtu: mtu)
        await #expect(throws: CardReaderError.badSwipe) { try await bench.reader.readMagneticStripe() }
    }

    @Test(arguments: mtus) func cancellingMidSwipe(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["no-swipe"], mtu: mtu)
        let swipe = Task { try await bench.reader.readMagneticStripe() }
        try await bench.clock.waitForSleepers(dueWithin: .seconds(30))
        swipe.cancel()
        await #expect(throws: CardReaderError.cancelled) { try await swipe.value }
        #expect(try await bench.reader.info().model == "VPOS3356")
    }

    /// The card is slow to answer an APDU (the reader leaves the 2nd command, the APDU,
    /// unanswered): cancelling sends CANCEL, which the reader answers at once; the call
    /// ends with `cancelled` at the cancel bound (0.5 s + 1 s) and the session goes on.
    @Test(arguments: mtus) func cancellingMidAPDU(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["card-inserted", "silent=2"], mtu: mtu)
        _ = try await bench.reader.powerOnCard()
        let apdu = Task { try await bench.reader.transmit(try .select(name: Array("2PAY.SYS.DDF01".utf8))) }
        try await bench.clock.waitForSleepers(dueWithin: .seconds(6))  // the APDU's deadline: 5 s + 1 s
        apdu.cancel()
        try await bench.pass(.milliseconds(1500))
        await #expect(throws: CardReaderError.cancelled) { try await apdu.value }
        #expect(try await bench.reader.cardSlotState() == .cardPowered)
    }

    /// The reader leaves GET INFO unanswered: the host times out at 0.5 s + 1 s, sends
    /// CANCEL, and the next command gets its own answer.
    @Test(arguments: mtus) func silenceTimesOutAndTheSessionRecovers(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["silent=1"], mtu: mtu)
        let first = Task { try await bench.reader.info() }
        try await bench.pass(.milliseconds(1500))
        await #expect(throws: CardReaderError.readerTimedOut(.getInfo, after: .milliseconds(1500))) {
            try await first.value
        }
        #expect(try await bench.reader.cardSlotState() == .noCard)
    }

    @Test(arguments: mtus) func chipPowerOnAPDUAndPowerOff(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["card-inserted"], mtu: mtu)
        #expect(try await bench.reader.cardSlotState() == .cardPresent)
        let atr = try await bench.reader.powerOnCard()
        #expect(atr.protocols == [0])
        #expect(try await bench.reader.cardSlotState() == .cardPowered)
        // SELECT PPSE (the documentation's APDU): the card answers 61xx, GET RESPONSE follows.
        let fci = try await bench.reader.transmit(try .select(name: Array("2PAY.SYS.DDF01".utf8)))
        #expect(fci.statusWord == .success)
        #expect(try BERTLV.parse(fci.data).first?.tag.description == "6F")
        let raw = try await bench.reader.transmit(try .select(name: Array("2PAY.SYS.DDF01".utf8)), options: .raw)
        #expect(raw.statusWord.sw1 == 0x61 && raw.data.count == 0)
        try await bench.reader.powerOffCard()
        #expect(try await bench.reader.cardSlotState() == .cardPresent)
    }

    @Test(arguments: mtus) func chipFailuresHaveTheirTypedErrors(mtu: Int) async throws {
        let empty = try await Bench(mtu: mtu)
        await #expect(throws: CardReaderError.noCard) { try await empty.reader.powerOnCard(waitingForInsertion: .zero) }

        let inserted = try await Bench(scenario: ["card-inserted"], mtu: mtu)
        await #expect(throws: CardReaderError.cardNotPowered) {
            try await inserted.reader.transmit(try .select(name: Array("2PAY.SYS.DDF01".utf8)))
        }

        let pulled = try await Bench(scenario: ["card-inserted", "remove-card-during-apdu=1"], mtu: mtu)
        var events = await pulled.reader.events().makeAsyncIterator()
        _ = try await pulled.reader.powerOnCard()
        await #expect(throws: CardReaderError.cardRemoved) {
            try await pulled.reader.transmit(try .select(name: Array("2PAY.SYS.DDF01".utf8)))
        }
        #expect(await events.next() == .cardRemoved)
    }

    @Test(arguments: mtus) func powerOnWaitsForInsertion(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["insert-after=3"], mtu: mtu)
        var events = await bench.reader.events().makeAsyncIterator()
        let powerOn = Task { try await bench.reader.powerOnCard(waitingForInsertion: .seconds(10)) }
        try await bench.pass(.seconds(3))
        #expect(try await powerOn.value.protocols == [0])
        #expect(await events.next() == .cardInserted)
    }

    @Test(arguments: mtus) func emvReadOfBothTestCards(mtu: Int) async throws {
        let visa = try await Bench(card: .visaTest, scenario: ["card-inserted"], mtu: mtu)
        _ = try await visa.reader.powerOnCard()
        let visaCard = try await visa.reader.readEMVCard()
        #expect(visaCard.primaryAccountNumber.revealed() == "4111111111111111")
        #expect(visaCard.applicationIdentifierHex == "A0000000031010")
        #expect(visaCard.expiry?.yymm == "2512")
        #expect(visaCard.cardholderName?.revealed().hasPrefix("DOE/JOHN") == true)
        #expect(!"\(visaCard)".contains("4111111111111111"))

        let mastercard = try await Bench(card: .mastercardTest, scenario: ["card-inserted"], mtu: mtu)
        _ = try await mastercard.reader.powerOnCard()
        let mastercardCard = try await mastercard.reader.readEMVCard()
        #expect(mastercardCard.primaryAccountNumber.revealed() == "5555555555554444")
        #expect(mastercardCard.applicationLabel == "MASTERCARD")
        #expect(mastercardCard.expiry?.yymm == "2712")
        #expect(mastercardCard.dataObject(EMVTag.applicationFileLocator.tag) != nil)
    }

    @Test(arguments: mtus) func busyAndLowBatteryAreTypedOutcomes(mtu: Int) async throws {
        let busy = try await Bench(scenario: ["busy"], mtu: mtu)
        await #expect(throws: CardReaderError.readerBusy(.getInfo)) { try await busy.reader.info() }

        let low = try await Bench(scenario: ["low-battery=4"], mtu: mtu)
        await #expect(throws: CardReaderError.batteryTooLow(.readMagneticStripe)) {
            try await low.reader.readMagneticStripe()
        }
    }

    /// Events arrive between a command and its answer without disturbing it.
    @Test(arguments: mtus) func eventsInterleaveWithAWaitingSwipe(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["swipe-after=5", "insert-after=2"], mtu: mtu)
        var events = await bench.reader.events().makeAsyncIterator()
        let swipe = Task { try await bench.reader.readMagneticStripe() }
        try await bench.pass(.seconds(2))
        #expect(await events.next() == .cardInserted)
        try await bench.pass(.seconds(3))
        #expect(try await swipe.value.track2.track != nil)
    }

    @Test(arguments: mtus) func aLinkDroppedMidFrameEndsTheCommandAtOnce(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["drop-mid-frame=1"], mtu: mtu)
        await #expect {
            try await bench.reader.info()
        } throws: { error in
            (error as? CardReaderError)?.code == .linkLost
        }
        guard case .lost = await bench.reader.state else {
            Issue.record("state should be lost")
            return
        }
    }

    @Test(arguments: mtus) func scheduledResetWarnsThenDrops(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["reset-after=60"], mtu: mtu)
        var events = await bench.reader.events().makeAsyncIterator()
        _ = try await bench.reader.info()  // the warning has been sent by the time GET INFO is answered
        #expect(await events.next() == .resetScheduled(after: .seconds(60)))
        try await bench.pass(.seconds(60))
        guard case .disconnected(let reason?) = await events.next() else {
            Issue.record("expected a disconnection with a reason")
            return
        }
        // The link says only what BlueZ says; the reader knows it was the announced reset.
        #expect(reason.code == .remoteDisconnected)
        #expect(await bench.reader.status.lastDisconnect?.code == .dailyReset)
    }

    /// A notification of the answer is corrupted: the host's decoder drops the frame, the
    /// command times out, and the session recovers through CANCEL.
    @Test(arguments: mtus) func aCorruptedAnswerTimesOutAndTheSessionRecovers(mtu: Int) async throws {
        let bench = try await Bench(scenario: ["corrupt-notification=1"], mtu: mtu)
        let first = Task { try await bench.reader.info() }
        try await bench.pass(.milliseconds(1500))
        await #expect(throws: CardReaderError.readerTimedOut(.getInfo, after: .milliseconds(1500))) {
            try await first.value
        }
        #expect(try await bench.reader.info().model == "VPOS3356")
    }

    @Test func disconnectAndReconnect() async throws {
        let bench = try await Bench(mtu: 23)
        let states = await bench.reader.stateUpdates()
        await bench.reader.disconnect()
        await #expect(throws: CardReaderError.notConnected) { try await bench.reader.info() }
        try await bench.reader.connect()
        #expect(try await bench.reader.info().model == "VPOS3356")
        var seen: [ConnectionState] = []
        for await state in states {
            seen.append(state)
            if seen.count == 4 { break }
        }
        #expect(seen == [.connected, .disconnected, .connecting, .connected])
    }
}
