import NIOCore
import NIOPosix
import Synchronization
import Testing

import CardReaderPCSC

/// The slot's power and presence as pcscd drives them (its order of calls is pcsc-lite
/// 1.9.9's: presence, then its own power-up when a card appears; a program's power-up when
/// it connects; power-down when the last program is gone), against a fake cardreaderd.
/// pcscd calls from its own threads, which wait: the calls here run on a thread pool's.
@Suite struct SlotChannelTests {
    let atr: [UInt8] = [0x3B, 0x68, 0x00, 0x00, 0x00, 0x73, 0xC8, 0x40, 0x13, 0x00, 0x90, 0x00]
    let selectPPSE: [UInt8] = Array("\u{0}\u{A4}\u{4}\u{0}\u{E}2PAY.SYS.DDF01\u{0}".unicodeScalars.map { UInt8($0.value) })
    let log = LogLines()

    func channel(_ service: FakeChipService) -> SlotChannel {
        let log = log
        return SlotChannel(
            name: DriverDeviceName(reader: "lane-1", socketPath: "/run/test.sock"), service: service,
            log: DriverLog { _, message in log.append(message) }, clock: ImmediateClock())
    }

    /// Runs `body` on a thread that may wait, as pcscd's do.
    func onDriverThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async throws -> Value {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        return try await pool.runIfActive { body() }
    }

    static func view(_ slot: ReaderView.Slot, atr: [UInt8] = [], connected: Bool = true) -> ServiceView {
        .reader(ReaderView(isConnected: connected, slot: slot, answerToReset: atr))
    }

    @Test func pcscdsOwnPowerUpOfACardWhoseATRIsKnownSendsNothing() async throws {
        let service = FakeChipService()
        service.change { $0.view = Self.view(.powered, atr: atr) }
        let slot = channel(service)
        let answers = try await onDriverThread { (slot.presence(), slot.power(.powerUp), slot.power(.powerDown)) }
        #expect(answers.0 == IFDCode.iccPresent)
        #expect(try answers.1.get() == atr)
        #expect(try answers.2.get() == [])
        #expect(service.calls.isEmpty, "no lease, no radio: \(service.calls)")
    }

    @Test func pcscdsOwnPowerUpOfACardNobodyPoweredFailsAndAProgramsConnectPowersIt() async throws {
        let service = FakeChipService()
        let slot = channel(service)
        let automatic = try await onDriverThread { (slot.presence(), slot.power(.powerUp)) }
        #expect(automatic.0 == IFDCode.iccPresent)
        #expect(automatic.1 == .failure(IFDFailure(IFDCode.errorPowerAction)))
        #expect(service.calls.isEmpty)
        #expect(log.withLock { $0.contains { $0.contains("powered when a program connects") } })

        // pcscd powers a card it could not power when a program connects.
        let connect = try await onDriverThread { (slot.presence(), slot.power(.powerUp)) }
        #expect(connect.0 == IFDCode.iccPresent)
        #expect(try connect.1.get() == atr)
        #expect(service.calls == ["hold", "powerOn lease-1"])
    }

    @Test func theFirstAPDUOnAPromisedCardTakesTheLeaseAndPowersItAndResponsesPassAsTheCardGaveThem() async throws {
        let service = FakeChipService()
        service.change {
            $0.view = Self.view(.present, atr: atr)
            // 61xx and 6Cxx are the caller's to follow (PC/SC): passed through.
            $0.responses = [[0x61, 0x2A], [0x6C, 0x10]]
        }
        let slot = channel(service)
        let command = selectPPSE
        let (power, first, second) = try await onDriverThread {
            (slot.power(.powerUp), slot.transmit(command, responseCapacity: 258), slot.transmit(command, responseCapacity: 258))
        }
        #expect(try power.get() == atr)
        #expect(try first.get() == [0x61, 0x2A])
        #expect(try second.get() == [0x6C, 0x10])
        #expect(service.calls.count == 4)
        #expect(Array(service.calls.prefix(2)) == ["hold", "powerOn lease-1"])
        #expect(service.calls[2].hasPrefix("transmit lease-1 0 a4 4 0 e"))
    }

    @Test func powerDownReleasesTheLeaseAndTheServicePowersTheCardOff() async throws {
        let service = FakeChipService()
        service.change { $0.view = Self.view(.present, atr: atr) }
        let slot = channel(service)
        let command = selectPPSE
        _ = try await onDriverThread { (slot.power(.powerUp), slot.transmit(command, responseCapacity: 258)) }
        let lease = try #require(service.takenLeases.first)
        #expect(!lease.wasReleased)
        _ = try await onDriverThread { slot.power(.powerDown) }
        #expect(lease.wasReleased)
    }

    @Test func anExtendedAPDUIsRefusedBeforeItReachesTheService() async throws {
        let service = FakeChipService()
        service.change { $0.view = Self.view(.present, atr: atr) }
        let slot = channel(service)
        // Lc in three bytes (00 01 00): 256 data bytes, ISO 7816-4's extended form.
        let extended: [UInt8] = [0x00, 0xD6, 0x00, 0x00, 0x00, 0x01, 0x00] + Array(repeating: 0x55, count: 256)
        let answer = try await onDriverThread { (slot.power(.powerUp), slot.transmit(extended, responseCapacity: 258)) }
        #expect(answer.1 == .failure(IFDFailure(IFDCode.communicationError)))
        #expect(service.calls.isEmpty)
        #expect(log.withLock { $0.contains { $0.contains("extended APDU") } })
    }

    @Test func aLinkLostIsACommunicationErrorAndEndsTheSessionThenTheReaderComesBack() async throws {
        let service = FakeChipService()
        service.change { $0.view = Self.view(.present, atr: atr) }
        let slot = channel(service)
        let command = selectPPSE
        _ = try await onDriverThread { (slot.presence(), slot.power(.powerUp), slot.transmit(command, responseCapacity: 258)) }
        service.change { $0.view = Self.view(.unknown, connected: false) }
        let lost = try await onDriverThread { (slot.presence(), slot.transmit(command, responseCapacity: 258)) }
        #expect(lost.0 == IFDCode.communicationError, "never IFD_NO_SUCH_DEVICE for a passing loss")
        #expect(lost.1 == .failure(IFDFailure(IFDCode.communicationError)))
        #expect(service.takenLeases.first?.wasReleased == true, "the lane is not kept out while the link is down")

        // Back, the card still in the slot but unpowered: a new arrival for pcscd.
        service.change { $0.view = Self.view(.present) }
        let back = try await onDriverThread { (slot.presence(), slot.power(.powerUp)) }
        #expect(back.0 == IFDCode.iccPresent)
        #expect(back.1 == .failure(IFDFailure(IFDCode.errorPowerAction)), "pcscd's own power-up, with no ATR known: nothing sent")
    }

    /// pcscd drops a reader whose first check fails (pcsc-lite 1.9.9, EHSpawnEventHandler):
    /// the first answer for a service not reachable yet is "no card", later ones an error.
    @Test func aServiceThatCannotBeReachedIsACommunicationErrorNeverNoSuchDevice() async throws {
        let service = FakeChipService()
        service.change { $0.view = .unreachable }
        let slot = channel(service)
        let answers = try await onDriverThread { (slot.presence(), slot.presence(), slot.power(.powerUp)) }
        #expect(answers.0 == IFDCode.iccNotPresent, "the reader is kept")
        #expect(answers.1 == IFDCode.communicationError)
        #expect(answers.2 == .failure(IFDFailure(IFDCode.communicationError)))
    }

    @Test func aCardRemovedIsAbsentAndEndsTheSession() async throws {
        let service = FakeChipService()
        service.change { $0.view = Self.view(.present, atr: atr) }
        let slot = channel(service)
        let command = selectPPSE
        _ = try await onDriverThread { (slot.presence(), slot.power(.powerUp), slot.transmit(command, responseCapacity: 258)) }
        service.change { $0.view = Self.view(.empty) }
        #expect(try await onDriverThread { slot.presence() } == IFDCode.iccNotPresent)
        #expect(service.takenLeases.first?.wasReleased == true)
        #expect(slot.answerToReset.isEmpty)
    }

    @Test func aReaderHeldByAnotherClientIsTriedForAWhileThenRefused() async throws {
        let service = FakeChipService()
        service.change {
            $0.view = Self.view(.present, atr: atr)
            $0.heldTimes = 100
        }
        let slot = channel(service)
        let command = selectPPSE
        let answer = try await onDriverThread { (slot.power(.powerUp), slot.transmit(command, responseCapacity: 258)) }
        #expect(answer.1 == .failure(IFDFailure(IFDCode.communicationError)))
        #expect(service.calls == Array(repeating: "hold", count: 11), "one try and ten more, 100 ms apart")
        #expect(log.withLock { $0.contains { $0.contains("reader-held") } })
    }

    @Test func aLeaseJustReleasedIsTakenAgainOnceTheServiceHasEndedIt() async throws {
        let service = FakeChipService()
        service.change {
            $0.view = Self.view(.present, atr: atr)
            $0.heldTimes = 2
        }
        let slot = channel(service)
        let command = selectPPSE
        let answer = try await onDriverThread { (slot.power(.powerUp), slot.transmit(command, responseCapacity: 258)) }
        #expect(try answer.1.get() == [0x90, 0x00])
        #expect(Array(service.calls.prefix(4)) == ["hold", "hold", "hold", "powerOn lease-1"])
    }

    @Test func aResetOfAPoweredCardPowersItOffAndOnUnderTheSameLease() async throws {
        let service = FakeChipService()
        service.change { $0.view = Self.view(.present, atr: atr) }
        let slot = channel(service)
        let command = selectPPSE
        let answers = try await onDriverThread {
            (slot.power(.powerUp), slot.transmit(command, responseCapacity: 258), slot.power(.reset))
        }
        #expect(try answers.2.get() == atr)
        #expect(Array(service.calls.suffix(2)) == ["powerOff lease-1", "powerOn lease-1"])
        #expect(service.takenLeases.count == 1)
    }

    @Test func aResponseLargerThanPcscdsBufferIsSaidSo() async throws {
        let service = FakeChipService()
        service.change {
            $0.view = Self.view(.present, atr: atr)
            $0.responses = [Array(repeating: 0x11, count: 40) + [0x90, 0x00]]
        }
        let slot = channel(service)
        let command = selectPPSE
        let answer = try await onDriverThread { (slot.power(.powerUp), slot.transmit(command, responseCapacity: 16)) }
        #expect(answer.1 == .failure(IFDFailure(IFDCode.errorInsufficientBuffer)))
    }

    @Test func aCardTheReaderFindsGoneIsAbsentForPcscd() async throws {
        let service = FakeChipService()
        service.change {
            $0.view = Self.view(.present, atr: atr)
            $0.failNextCall = DriverFailure(kind: .noCard, message: "no card", reason: "no-card")
        }
        let slot = channel(service)
        let command = selectPPSE
        let answer = try await onDriverThread { (slot.power(.powerUp), slot.transmit(command, responseCapacity: 258)) }
        #expect(answer.1 == .failure(IFDFailure(IFDCode.iccNotPresent)))
        #expect(service.takenLeases.first?.wasReleased == true)
    }

    @Test func logsNameTheReaderAndNeverCarryAnAPDUsBytes() async throws {
        let service = FakeChipService()
        service.change {
            $0.view = Self.view(.present, atr: atr)
            $0.failNextCall = nil
        }
        let slot = channel(service)
        let command = selectPPSE
        _ = try await onDriverThread {
            (slot.presence(), slot.power(.powerUp), slot.transmit(command, responseCapacity: 258), slot.power(.powerDown))
        }
        service.change { $0.view = Self.view(.unknown, connected: false) }
        _ = try await onDriverThread { (slot.presence(), slot.transmit(command, responseCapacity: 258)) }
        let lines = log.withLock { $0 }
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line.hasPrefix("lane-1: "))
            #expect(!line.contains("PAY.SYS") && !line.uppercased().contains("A404"), "\(line)")
        }
    }
}
