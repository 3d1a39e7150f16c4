import BLETransport
import CardReaderKit
import CardReaderKitTesting
import Testing

/// Commands answered at once (reader documentation §3–§5), driven through the link at both MTUs.
@Suite(.timeLimit(.minutes(1))) struct EmulatedReaderCommandTests {
    @Test(arguments: [23, 247]) func getInfoReportsTheConfiguredReader(mtu: Int) async throws {
        var host = try await EmulatorHost(mtu: mtu)
        // The documentation's GET INFO request bytes (§9).
        try await host.write(hex("02 C0 01 00 00 00 54"))
        let response = try await host.nextResponse()
        #expect(response.code == .getInfo)
        #expect(response.status == .success)
        guard case .info(let info) = response.body else { return #expect(Bool(false), "no info body") }
        #expect(info.model == "VPOS3356")
        #expect(info.serialNumber == "EMU00001")
        #expect(info.firmwareVersion == "3.1.0")
        #expect(info.batteryPercent == 85)
        #expect(info.capabilities == [.magneticStripe, .contactChip])
        #expect(info.bootloaderVersion == "1.0.3")
        // 7 framing bytes + status + six fields of 8, 8, 5, 1, 1, 5 value bytes and 2 header
        // bytes each (40) = 48 bytes: 20 + 20 + 8 at MTU 23, one notification at 247.
        #expect(host.notifications.map(\.count) == (mtu == 23 ? [20, 20, 8] : [48]))
    }

    @Test func getInfoReportsAConfiguredInfo() async throws {
        let configured = ReaderInfo(
            model: "VPOS3356", serialNumber: "SN-42", firmwareVersion: "3.0.0", batteryPercent: 50,
            capabilities: [.magneticStripe], bootloaderVersion: "2.0")
        var host = try await EmulatorHost(configuration: EmulatedReaderConfiguration(info: configured))
        let response = try await host.exchange(.getInfo)
        #expect(response.body == .info(configured))
    }

    /// The documentation's golden swipe (§9): request `02 C1 07 00 02 00 00 FC 34`; the 101-byte
    /// response arrives as six notifications at the default MTU, one at MTU 247.
    @Test(arguments: [23, 247]) func swipeMatchesTheDocumentedExampleByteForByte(mtu: Int) async throws {
        var host = try await EmulatorHost(card: .visaSwipeOnly, mtu: mtu)
        try await host.write(hex("02 C1 07 00 02 00 00 FC 34"))
        let frame = try #require(await host.nextFrame())
        let documented = hex("""
            02 C1 07 00 5E 00 33 25 42 34 31 31 31 31 31 31 31 31 31 31
            31 31 31 31 31 5E 44 4F 45 2F 4A 4F 48 4E 5E 32 35 31 32 31
            30 31 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 3F 27 3B
            34 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 3D 32 35 31
            32 31 30 31 30 30 30 30 30 30 30 30 30 30 30 30 30 3F 00 E3
            78
            """)
        #expect(try frame.encoded() == documented)
        let expectedNotifications = stride(from: 0, to: 101, by: mtu - 3).map {
            Array(documented[$0..<min($0 + mtu - 3, 101)])
        }
        #expect(host.notifications == expectedNotifications)
        #expect(host.notifications.count == (mtu == 23 ? 6 : 1))
    }

    @Test(arguments: [23, 247]) func cancelWithNothingWaitingAnswersSuccessAtOnce(mtu: Int) async throws {
        var host = try await EmulatorHost(mtu: mtu)
        // The documentation's CANCEL request bytes (§9).
        try await host.write(hex("02 C0 02 00 00 59 04"))
        let response = try await host.nextResponse()
        #expect(response == ReaderResponse(code: .cancel, status: .success))
    }

    @Test(arguments: [23, 247]) func cancelAnswersTheWaitingCommandFirstWithCancelled(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["no-swipe"], mtu: mtu)
        try await host.send(.readMagneticStripe(timeoutSeconds: 0))
        try await host.send(.cancel)
        #expect(try await host.nextResponse() == ReaderResponse(code: .readMagneticStripe, status: .cancelled))
        #expect(try await host.nextResponse() == ReaderResponse(code: .cancel, status: .success))
        // Nothing waits any more: the next command is answered normally, not busy.
        #expect(try await host.exchange(.iccStatus).status == .success)
    }

    @Test(arguments: [23, 247]) func aSecondCommandWhileOneWaitsIsBusy(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["no-swipe"], mtu: mtu)
        try await host.send(.readMagneticStripe(timeoutSeconds: 10))
        #expect(try await host.exchange(.getInfo) == ReaderResponse(code: .getInfo, status: .busy))
        #expect(try await host.exchange(.iccPowerOn(insertionWaitSeconds: 0)) == ReaderResponse(code: .iccPowerOn, status: .busy))
        // The swipe still waits: CANCEL ends it.
        try await host.send(.cancel)
        #expect(try await host.nextResponse().status == .cancelled)
        #expect(try await host.nextResponse().code == .cancel)
    }

    @Test(arguments: [23, 247]) func unknownCommandsAnswerUnknownCommand(mtu: Int) async throws {
        var host = try await EmulatorHost(mtu: mtu)
        try await host.write(try Frame(main: 0xC3, sub: 0x01).encoded())
        #expect(try await host.nextResponse() == ReaderResponse(code: CommandCode(main: 0xC3, sub: 0x01), status: .unknownCommand))
        try await host.write(try Frame(main: 0xC0, sub: 0x7F, data: [1, 2]).encoded())
        #expect(try await host.nextResponse().status == .unknownCommand)
    }

    @Test(arguments: [23, 247]) func invalidDataLengthsAnswerInvalidParameter(mtu: Int) async throws {
        var host = try await EmulatorHost(scenario: ["card-inserted"], mtu: mtu)
        let invalid: [Frame] = [
            Frame(code: .getInfo, data: [0]),
            Frame(code: .cancel, data: [0]),
            Frame(code: .readMagneticStripe, data: [0]),
            Frame(code: .iccPowerOn, data: []),
            Frame(code: .iccPowerOff, data: [1]),
            Frame(code: .iccStatus, data: [1, 2]),
            Frame(code: .enterFirmwareUpdate, data: [0, 0, 1]),
            Frame(code: .iccAPDU, data: [0x00, 0xA4, 0x04]),  // 3 bytes: below the 4-byte APDU minimum
            Frame(code: .iccAPDU, data: [UInt8](repeating: 0, count: 262)),  // above 261
            Frame(code: .iccAPDU, data: [0x00, 0xB2, 0x01, 0x0C, 0x05, 0x01]),  // Lc 5 but 1 data byte
            Frame(code: .iccAPDU, data: [0x00, 0xB2, 0x01, 0x0C, 0x00, 0x00, 0x10]),  // extended Le
        ]
        for frame in invalid {
            try await host.write(try frame.encoded())
            #expect(try await host.nextResponse() == ReaderResponse(code: frame.code, status: .invalidParameter), "\(frame)")
        }
    }

    /// ENTER FIRMWARE UPDATE's refusals (§7.1): size 0 or above 1 MiB `07`, another command
    /// waiting `08`, battery below 30 % `0B`; the reader keeps speaking frames.
    @Test func enterFirmwareUpdateRefusals() async throws {
        var host = try await EmulatorHost(scenario: ["no-swipe"])
        #expect(try await host.exchange(.enterFirmwareUpdate(imageSize: 0)).status == .invalidParameter)
        #expect(try await host.exchange(.enterFirmwareUpdate(imageSize: 1_048_577)).status == .invalidParameter)
        try await host.send(.readMagneticStripe(timeoutSeconds: 30))  // nobody swipes: it waits
        #expect(try await host.exchange(.enterFirmwareUpdate(imageSize: 1024)).status == .busy)
        var low = try await EmulatorHost(scenario: ["battery=29"])
        #expect(try await low.exchange(.enterFirmwareUpdate(imageSize: 1024)).status == .batteryTooLow)
        #expect(try await low.exchange(.iccStatus).status == .success)
    }

    /// Accepted, the link carries YModem from the next byte: the reader's `C`; the host's
    /// `CAN CAN` brings frames back at once.
    @Test func enterFirmwareUpdateSwitchesTheLinkToYModem() async throws {
        // No `C` again (the reader asks once a second) while the test looks: the clock stays.
        let reader = EmulatedReader(clock: ManualClock())
        let connection = try await reader.connect(maximumNotificationLength: 20, encrypted: true)
        var inbound = connection.notifications.makeAsyncIterator()
        try await reader.receive(try ReaderCommand.enterFirmwareUpdate(imageSize: 3028).frame.encoded(), connection: connection.id)
        // 02 C0 10 00 01 00 + CRC: the documented frame of an answer with status 00.
        guard case .notification(let answer)? = await inbound.next() else { return #expect(Bool(false)) }
        #expect(Array(answer.prefix(6)) == [0x02, 0xC0, 0x10, 0x00, 0x01, 0x00])
        guard case .notification(let request)? = await inbound.next() else { return #expect(Bool(false)) }
        #expect(request == [0x43])
        // A frame now is YModem noise, not a command: no answer until CAN CAN.
        try await reader.receive([0x18, 0x18], connection: connection.id)
        try await reader.receive(try ReaderCommand.iccStatus.frame.encoded(), connection: connection.id)
        guard case .notification(let status)? = await inbound.next() else { return #expect(Bool(false)) }
        #expect(Array(status.prefix(3)) == [0x02, 0xC2, 0x04])
    }

    @Test(arguments: [23, 247]) func framesWithABadChecksumOrLengthAreDroppedSilently(mtu: Int) async throws {
        var host = try await EmulatorHost(mtu: mtu)
        var badCRC = hex("02 C0 01 00 00 00 54")
        badCRC[6] ^= 0x01
        try await host.write(badCRC)
        // LEN 0x0401 = 1025 > 1024: out of range.
        try await host.write(hex("02 C0 01 04 01"))
        try await host.write(hex("55 AA"))
        try await host.send(.iccStatus)
        // The first answer is ICC STATUS's: nothing answered the damaged frames.
        #expect(try await host.nextResponse() == ReaderResponse(code: .iccStatus, status: .success, body: .iccStatus(.noCard)))
    }

    @Test func commandsSplitAcrossArbitraryPacketsAreReassembled() async throws {
        var host = try await EmulatorHost(mtu: 247)
        let bytes = try ReaderCommand.getInfo.frame.encoded() + ReaderCommand.iccStatus.frame.encoded()
        for byte in bytes { try await host.link.write([byte]) }
        #expect(try await host.nextResponse().code == .getInfo)
        #expect(try await host.nextResponse().code == .iccStatus)
    }
}
