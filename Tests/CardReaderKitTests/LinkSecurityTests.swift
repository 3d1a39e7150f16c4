import BLETransport
import CardReaderKit
import CardReaderKitTesting
import Locking
import Logging
import ReaderProtocol
import Testing

/// Link security (reader documentation §1.1): what a connector decides from the firmware
/// revision and the bond, and what CardReader runs on an unencrypted link. The revisions'
/// expected decisions come from §1.1's text (from firmware 3.0 the data service needs an
/// encrypted link) and the SDK's rules in Docs/link-security.md, not from the code.
@Suite struct LinkSecurityTests {
    @Test(arguments: [
        ("2.4.1", LinkSecurityPolicy.Decision.openUnencrypted), ("v2.4", .openUnencrypted),
        (" 2.9 ", .openUnencrypted), ("02.10", .openUnencrypted), ("2", .openUnencrypted),
        ("2.9-beta", .openUnencrypted), ("3.0.0", .needsPairing), ("3", .needsPairing), ("10.1", .needsPairing),
        ("", .needsPairing), ("beta", .needsPairing), ("2a.1", .needsPairing), ("99999999999999999999.1", .needsPairing),
        ("-2.4", .needsPairing), ("２.4.1", .needsPairing),
    ])
    func aRevisionDecidesForAReaderNeverBonded(revision: String, expected: LinkSecurityPolicy.Decision) {
        #expect(LinkSecurityPolicy.decide(firmwareRevision: revision, hostHoldsBond: false) == expected)
    }

    @Test func aMissingRevisionIsTakenAs3Point0() {
        #expect(LinkSecurityPolicy.decide(firmwareRevision: nil, hostHoldsBond: false) == .needsPairing)
    }

    /// No downgrade: whatever the revision says, a bonded reader is used encrypted.
    @Test(arguments: ["2.4.1", "3.1.0", "", "beta"])
    func aBondedReaderIsAlwaysEncrypted(revision: String) {
        #expect(LinkSecurityPolicy.decide(firmwareRevision: revision, hostHoldsBond: true) == .encryptWithBond)
        #expect(LinkSecurityPolicy.decide(firmwareRevision: nil, hostHoldsBond: true) == .encryptWithBond)
    }

    /// On an unencrypted link GET INFO works and says so; READ MAGNETIC STRIPE, ICC POWER
    /// ON, ICC APDU and ENTER FIRMWARE UPDATE are refused before anything is written.
    @Test func cardOperationsAreRefusedOnAnUnencryptedLinkBeforeAnythingIsWritten() async throws {
        let scripted = ScriptedReader(security: .unencrypted)
        // A clock nobody advances: the reader answers when the test says, however long that takes.
        let reader = CardReader(connector: scripted.connector, clock: ManualClock())
        try await reader.connect()
        #expect(await reader.linkSecurity == .unencrypted)
        async let info = reader.info()
        #expect(try await scripted.nextCommand() == .getInfo)
        try await scripted.answer(.getInfo, .success, .info(ReaderInfo(model: "VPOS3356", firmwareVersion: "2.4.1")))
        #expect(try await info.firmwareVersion == "2.4.1")
        let written = await scripted.packetSizes.count

        let apdu = try CommandAPDU(parsing: [0x00, 0xA4, 0x04, 0x00])
        let image = try FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS3356", version: "2.5.0", payload: [1]))
        let refusals: [(CommandCode, @Sendable () async throws(CardReaderError) -> Void)] = [
            (.readMagneticStripe, { () throws(CardReaderError) in _ = try await reader.readMagneticStripe() }),
            (.iccPowerOn, { () throws(CardReaderError) in _ = try await reader.powerOnCard() }),
            (.iccAPDU, { () throws(CardReaderError) in _ = try await reader.transmit(apdu) }),
            (.enterFirmwareUpdate, { () throws(CardReaderError) in _ = try await reader.updateFirmware(image: image).run { _ in } }),
        ]
        for (command, operation) in refusals {
            do throws(CardReaderError) {
                try await operation()
                Issue.record("\(command) ran on an unencrypted link")
            } catch {
                #expect(error.code == .linkNotEncrypted)
                #expect(error.command == command)
                #expect(error.fix?.contains("allowsUnencryptedLink") == true)
                #expect(error.description.contains("not encrypted"))
            }
        }
        #expect(await scripted.packetSizes.count == written)
    }

    /// Allowed explicitly, a card operation runs on an unencrypted link, and the reader
    /// says so in one warning per connection.
    @Test func anExplicitOptInRunsCardOperationsAndWarnsOncePerConnection() async throws {
        let scripted = ScriptedReader(security: .unencrypted)
        let lines = Locked<[CapturingLogHandler.Line]>([])
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        let reader = CardReader(
            connector: scripted.connector, configuration: CardReader.Configuration(allowsUnencryptedLink: true),
            clock: ManualClock(), logger: logger)
        for _ in 0..<2 {
            try await reader.connect()
            async let state = reader.cardSlotState()
            #expect(try await scripted.nextCommand() == .iccStatus)
            try await scripted.answer(.iccStatus, .success, .iccStatus(.cardPresent))
            #expect(try await state == .cardPresent)
            async let power = reader.powerOnCard()
            #expect(try await scripted.nextCommand().code == .iccPowerOn)
            try await scripted.answer(.iccPowerOn, .success, .answerToReset(AnswerToReset(bytes: [0x3B, 0x00])))
            _ = try await power
            await reader.disconnect()
        }
        let warnings = lines.withLock { $0 }.map(\.text).filter { $0.hasPrefix("warning") && $0.contains("not encrypted") }
        #expect(warnings.count == 2)
    }
}
