import CardReaderKit
import CardReaderKitTesting
import Testing

/// ICC POWER ON / POWER OFF / STATUS / APDU statuses as the slot changes (§3, §5).
@Suite(.timeLimit(.minutes(1))) struct EmulatedReaderChipSlotTests {
    @Test(arguments: [23, 247]) func powerOnWithoutWaitingAndWithoutACardAnswersNoCard(mtu: Int) async throws {
        var host = try await EmulatorHost(mtu: mtu)
        // The documentation's POWER ON, no wait (§9).
        try await host.write(hex("02 C2 01 00 01 00 23 B2"))
        #expect(try await host.nextResponse() == ReaderResponse(code: .iccPowerOn, status: .noCard))
    }

    @Test(arguments: [23, 247]) func theDocumentedPowerOnResponseComesBackForTheVisaCard(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["card-inserted"], mtu: mtu)
        try await host.send(.iccPowerOn(insertionWaitSeconds: 0))
        let frame = try #require(await host.nextFrame())
        // §9: ICC POWER ON response with ATR 3B 68 00 00 00 73 C8 40 13 00 90 00.
        #expect(try frame.encoded() == hex("02 C2 01 00 0D 00 3B 68 00 00 00 73 C8 40 13 00 90 00 C6 20"))
    }

    @Test func statusFollowsTheSlotThroughPowerOnAndOff() async throws {
        var host = try await EmulatorHost(scenario: ["card-inserted"])
        #expect(try await host.exchange(.iccStatus).body == .iccStatus(.cardPresent))
        #expect(try await host.exchange(.iccPowerOn(insertionWaitSeconds: 0)).status == .success)
        #expect(try await host.exchange(.iccStatus).body == .iccStatus(.cardPowered))
        #expect(try await host.exchange(.iccPowerOff) == ReaderResponse(code: .iccPowerOff, status: .success))
        #expect(try await host.exchange(.iccStatus).body == .iccStatus(.cardPresent))
    }

    @Test func apduAndPowerOffBeforePowerOnAnswerCardNotPowered() async throws {
        var host = try await EmulatorHost(scenario: ["card-inserted"])
        let select = try CommandAPDU.select(name: Array("2PAY.SYS.DDF01".utf8))
        #expect(try await host.exchange(.iccAPDU(select)) == ReaderResponse(code: .iccAPDU, status: .cardNotPowered))
        #expect(try await host.exchange(.iccPowerOff) == ReaderResponse(code: .iccPowerOff, status: .cardNotPowered))
    }

    @Test func apduAndPowerOffWithAnEmptySlotAnswerNoCard() async throws {
        var host = try await EmulatorHost()
        let select = try CommandAPDU.select(name: Array("2PAY.SYS.DDF01".utf8))
        #expect(try await host.exchange(.iccAPDU(select)).status == .noCard)
        #expect(try await host.exchange(.iccPowerOff).status == .noCard)
        #expect(try await host.exchange(.iccStatus).body == .iccStatus(.noCard))
    }

    @Test func aStripeOnlyCardInTheSlotGivesNoATR() async throws {
        var host = try await EmulatorHost(card: .visaSwipeOnly, scenario: ["card-inserted"])
        #expect(try await host.exchange(.iccPowerOn(insertionWaitSeconds: 0)).status == .cardNotResponding)
        #expect(try await host.exchange(.iccStatus).body == .iccStatus(.cardPresent))
    }

    @Test func aCardWhoseATRDoesNotParseDoesNotAnswer() async throws {
        var card = EmulatedCard.visaTest
        card.chip?.answerToReset = [0x3B, 0x6F]  // announces 15 historical bytes, has none
        var host = try await EmulatorHost(card: card, scenario: ["card-inserted"])
        #expect(try await host.exchange(.iccPowerOn(insertionWaitSeconds: 0)).status == .cardNotResponding)
    }

    @Test func closingTheLinkPowersTheCardOff() async throws {
        var host = try await EmulatorHost(scenario: ["card-inserted"])
        #expect(try await host.exchange(.iccPowerOn(insertionWaitSeconds: 0)).status == .success)
        await host.link.close()
        var second = try await EmulatorHost(connectingTo: host.reader, clock: host.clock)
        #expect(try await second.exchange(.iccStatus).body == .iccStatus(.cardPresent))
    }
}
