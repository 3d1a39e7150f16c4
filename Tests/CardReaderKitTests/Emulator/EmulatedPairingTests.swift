import CardReaderKit
import CardReaderKitTesting
import ReaderProtocol
import Testing

/// The emulated reader's link security (documentation §1.1) through EmulatedReaderConnector:
/// who may connect, pairing mode (120 s), Just Works and Passkey Entry, 8 bonds, a bond the
/// reader forgot. Time is a ManualClock; every wait is bounded.
@Suite(.timeLimit(.minutes(1))) struct EmulatedPairingTests {
    let clock = ManualClock()

    func reader(_ scenario: [String] = [], configuration: EmulatedReaderConfiguration = EmulatedReaderConfiguration())
        throws -> EmulatedReader
    {
        EmulatedReader(card: .visaTest, scenario: try EmulatorScenario(parsing: scenario), configuration: configuration, clock: clock)
    }

    func pairingError(_ connector: EmulatedReaderConnector, _ request: PairingRequest = PairingRequest()) async -> PairingError? {
        do throws(PairingError) {
            _ = try await connector.pair(request)
            return nil
        } catch {
            return error
        }
    }

    func connectError(_ connector: EmulatedReaderConnector) async -> LinkError? {
        do throws(LinkError) {
            let link = try await connector.connect()
            await link.close()
            return nil
        } catch {
            return error
        }
    }

    /// The installed lane's host holds a bond: the link is encrypted and a swipe works.
    @Test func theInstalledHostConnectsEncrypted() async throws {
        let emulator = try reader()
        let reader = CardReader(connector: EmulatedReaderConnector(reader: emulator), clock: clock)
        try await reader.connect()
        #expect(await reader.linkSecurity == .encrypted)
        _ = try await reader.readMagneticStripe()
    }

    /// A stranger is refused before the data service is touched, with the fix; once it
    /// pairs (Just Works, in pairing mode), it connects encrypted.
    @Test func aStrangerMustPairFirst() async throws {
        let emulator = try reader()
        let stranger = EmulatedReaderConnector(reader: emulator, host: EmulatedHost(address: "lane 7"))
        let refused = await connectError(stranger)
        #expect(refused?.code == .notPaired)
        #expect(refused?.fix?.contains("pairing mode") == true)
        #expect(await emulator.sentOnLatestConnection.connection == 0, "no connection was made")

        #expect(try await stranger.pair(PairingRequest()) == .paired(.justWorks))
        #expect(await stranger.holdsBond())
        #expect(await emulator.bondedHosts == [EmulatedHost.installedAddress, "lane 7"])
        let link = try await stranger.connect()
        #expect(link.security == .encrypted)
        await link.close()
        #expect(try await stranger.pair(PairingRequest()) == .alreadyBonded)
    }

    /// Outside pairing mode a new host is refused (SMP 0x05); holding the button opens
    /// pairing mode for 120 s, after which it is refused again.
    @Test func pairingModeLasts120Seconds() async throws {
        let emulator = try reader(["not-in-pairing-mode"])
        let host = EmulatedReaderConnector(reader: emulator, host: EmulatedHost(address: "lane 2"))
        let refused = await pairingError(host)
        #expect(refused?.code == .pairingRefused)
        #expect(refused?.detail.contains("0x05") == true)
        #expect(refused?.fix?.contains("button") == true)
        #expect(await !host.holdsBond())

        await emulator.holdButtonForPairing()
        clock.advance(by: .seconds(119))
        #expect(await emulator.isInPairingMode)
        clock.advance(by: .seconds(1))
        #expect(await !emulator.isInPairingMode)
        #expect(await pairingError(host)?.code == .pairingRefused)

        await emulator.holdButtonForPairing()
        #expect(try await host.pair(PairingRequest()) == .paired(.justWorks))
    }

    /// The default pairing mode is the 120 s after power-on.
    @Test func pairingModeEndsTwoMinutesAfterStart() async throws {
        let emulator = try reader()
        clock.advance(by: .seconds(120))
        let host = EmulatedReaderConnector(reader: emulator, host: EmulatedHost(address: "late"))
        #expect(await pairingError(host)?.code == .pairingRefused)
    }

    /// A reader with a display pairs by Passkey Entry: the digits it shows work; a
    /// backend that cannot prompt is told a passkey is needed; wrong digits leave no bond.
    @Test func passkeyEntry() async throws {
        var configuration = EmulatedReaderConfiguration()
        configuration.info.capabilities = [.magneticStripe, .contactChip, .display]
        let emulator = try reader(configuration: configuration)
        let host = EmulatedReaderConnector(reader: emulator, host: EmulatedHost(address: "lane 3"))

        let headless = await pairingError(host)
        #expect(headless?.code == .passkeyNeeded)
        #expect(headless?.fix?.contains("--passkey") == true)

        let wrong = await pairingError(host, PairingRequest { _ in
            let shown = await emulator.displayedPasskey
            return Passkey(((shown?.value ?? 0) + 1) % 1_000_000)
        })
        #expect(wrong?.code == .wrongPasskey)
        #expect(wrong?.detail.contains("0x04") == true)
        #expect(await !host.holdsBond())
        #expect(await !emulator.bondedHosts.contains("lane 3"))

        let outcome = try await host.pair(PairingRequest { prompt in
            #expect(prompt.reader == "emulated VPOS3356")
            return await emulator.displayedPasskey
        })
        #expect(outcome == .paired(.passkeyEntry))
        let link = try await host.connect()
        #expect(link.security == .encrypted)
    }

    /// `wrong-passkey`: even the digits shown are refused.
    @Test func theWrongPasskeyScenarioRefusesEveryPasskey() async throws {
        let emulator = try reader(["wrong-passkey"])
        let host = EmulatedReaderConnector(reader: emulator, host: EmulatedHost(address: "lane 4"))
        let error = await pairingError(host, PairingRequest { _ in await emulator.displayedPasskey })
        #expect(error?.code == .wrongPasskey)
        #expect(await !host.holdsBond())
    }

    /// A passkey nobody types fails at the request's time limit, and a reader that never
    /// answers at the request's timeout; neither leaves a bond or a pairing under way.
    @Test func pairingWaitsAreBounded() async throws {
        let emulator = try reader(["passkey"])
        let host = EmulatedReaderConnector(reader: emulator, host: EmulatedHost(address: "lane 5"))
        async let untyped = pairingError(host, PairingRequest(timeout: .seconds(60), passkeyTimeLimit: .seconds(30)) { _ in
            try? await Task.sleep(for: .seconds(3600))
            return nil
        })
        try await clock.waitForSleepers(atLeast: 2, dueWithin: .seconds(60))
        clock.advance(by: .seconds(30))
        #expect(await untyped?.code == .passkeyTimedOut)
        #expect(await emulator.displayedPasskey == nil)

        let stalling = try reader(["pairing-stalls"])
        let other = EmulatedReaderConnector(reader: stalling, host: EmulatedHost(address: "lane 6"))
        async let stalled = pairingError(other, PairingRequest(timeout: .seconds(20)))
        try await clock.waitForSleepers(dueNoSoonerThan: .seconds(20), dueWithin: .seconds(20))
        clock.advance(by: .seconds(20))
        let error = await stalled
        #expect(error?.code == .timedOut)
        #expect(error?.fix?.contains("pairing mode") == true)
        #expect(await !other.holdsBond())
    }

    /// `bond-forgotten`: the host's bond no longer encrypts; the fix is to unpair and pair
    /// again, which works in pairing mode.
    @Test func aBondTheReaderForgotIsReportedWithItsFix() async throws {
        let emulator = try reader(["bond-forgotten"])
        let connector = EmulatedReaderConnector(reader: emulator)
        #expect(await connector.holdsBond())
        let error = await connectError(connector)
        #expect(error?.code == .bondLost)
        #expect(error?.fix?.contains("unpair") == true)
        #expect(try await connector.pair(PairingRequest()) == .alreadyBonded)
        await connector.unpair()
        #expect(await !connector.holdsBond())
        #expect(await connectError(connector)?.code == .notPaired)
        #expect(try await connector.pair(PairingRequest()) == .paired(.justWorks))
        let link = try await connector.connect()
        #expect(link.security == .encrypted)
    }

    /// The reader keeps 8 bonds: a ninth host's pairing drops the oldest, whose next
    /// connection finds its bond lost.
    @Test func theNinthBondDropsTheOldest() async throws {
        let emulator = try reader()
        let first = EmulatedReaderConnector(reader: emulator)
        for lane in 1...8 {
            let host = EmulatedReaderConnector(reader: emulator, host: EmulatedHost(address: "lane \(lane)"))
            #expect(try await host.pair(PairingRequest()) == .paired(.justWorks))
        }
        #expect(await emulator.bondedHosts == (1...8).map { "lane \($0)" })
        #expect(await connectError(first)?.code == .bondLost)
    }

    /// A reader before 3.0 does not pair, and its link is unencrypted.
    @Test func aReaderBefore3Point0DoesNotPair() async throws {
        var configuration = EmulatedReaderConfiguration()
        configuration.info.firmwareVersion = "2.4.1"
        let emulator = try reader(configuration: configuration)
        let connector = EmulatedReaderConnector(reader: emulator)
        #expect(await !connector.holdsBond())
        #expect(await pairingError(connector)?.code == .pairingNotSupported)
        let link = try await connector.connect()
        #expect(link.security == .unencrypted)
    }

    /// Written around the connector, a link that is not encrypted gets nothing from a
    /// reader from 3.0: its writes are refused as the reader refuses them (ATT 0x0F).
    @Test func anUnencryptedLinkTo3Point0IsRefusedByTheReader() async throws {
        let emulator = try reader()
        let link = try await EmulatedReaderLink(reader: emulator)
        #expect(link.security == .unencrypted)
        let frame = try ReaderCommand.getInfo.frame.encoded()
        do throws(LinkError) {
            try await link.write(frame)
            Issue.record("the reader took a write on an unencrypted link")
        } catch {
            #expect(error.code == .insufficientEncryption)
            #expect(error.detail.contains("0x0F"))
        }
    }

    @Test func passkeysAreSixDigitsAndNeverShown() {
        #expect(Passkey(digits: "004271")?.value == 4271)
        #expect(Passkey(digits: "004271")?.digits == "004271")
        #expect(Passkey(digits: "4271") == nil)
        #expect(Passkey(digits: "12345a") == nil)
        #expect(Passkey(digits: "１２３４５６") == nil)
        #expect(Passkey(1_000_000) == nil)
        #expect(Passkey(digits: "123456").map { "\($0)" } == "••••••")
    }
}
