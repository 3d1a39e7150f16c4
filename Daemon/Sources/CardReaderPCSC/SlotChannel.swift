import CPCSCDriverInterface
import ReaderProtocol
import Synchronization

/// One PC/SC slot: a reader at cardreaderd, as pcscd sees it.
///
/// pcscd powers a card up by itself the moment it sees one, and down again when no program
/// uses it. Neither is allowed to reach the reader's radio or take the reader from the
/// lane's own point-of-sale process, so power is kept in three steps:
/// - *promised*: pcscd was given the card's ATR, as the service knows it from the card's
///   last power-on since it was inserted; nothing was sent to the reader;
/// - *powered*: the driver holds the reader's lease and has powered the card, at the first
///   APDU (or when a program connects to a card whose ATR nobody has read yet);
/// - *off*: the lease is released; the service powers the card off.
/// pcscd's own power-up of a card whose ATR is not known yet fails, and is made when a
/// program connects (pcscd powers a card it could not power then).
package final class SlotChannel: Sendable {
    package let name: DriverDeviceName
    private let service: any ChipService
    private let log: DriverLog
    private let clock: any Clock<Duration>
    private let state = Mutex(State())

    private struct State {
        /// Whether pcscd has asked for the card yet.
        var askedBefore = false
        /// The last presence answer was "a card is present".
        var reportedPresent = false
        /// A card just appeared: the next power-up is pcscd's own.
        var automaticPowerUpDue = false
        var power = Power.off
    }

    private enum Power {
        case off
        /// pcscd holds this ATR; the card is not powered for the driver.
        case promised(answerToReset: [UInt8])
        /// The driver holds the lease and powered the card.
        case powered(lease: any ServiceLease, answerToReset: [UInt8])

        var answerToReset: [UInt8] {
            switch self {
            case .off: []
            case .promised(let atr), .powered(_, let atr): atr
            }
        }
    }

    package init(name: DriverDeviceName, service: any ChipService, log: DriverLog, clock: any Clock<Duration> = ContinuousClock()) {
        self.name = name
        self.service = service
        self.log = log
        self.clock = clock
    }

    // MARK: - pcscd's calls

    /// IFDHICCPresence: from what the service last said, never a call. pcscd drops a
    /// reader whose first answer is an error: a reader not reachable yet is first said to
    /// be without a card, then unavailable (IFD_COMMUNICATION_ERROR) until it is.
    package func presence() -> PCSCDriverResponse {
        state.withLock { state in
            let answer = presence(&state)
            defer { state.askedBefore = true }
            guard !state.askedBefore, answer == IFDCode.communicationError else { return answer }
            log.info("\(name.reader): not reachable yet; shown without a card until it is")
            return IFDCode.iccNotPresent
        }
    }

    private func presence(_ state: inout State) -> PCSCDriverResponse {
        switch service.view(of: name.reader) {
        case .unreachable:
            endSession(&state, because: "cardreaderd cannot be reached")
            state.reportedPresent = false
            return IFDCode.communicationError
        case .unknownReader:
            endSession(&state, because: "cardreaderd holds no reader \(name.reader)")
            state.reportedPresent = false
            return IFDCode.communicationError
        case .reader(let view):
            guard view.isConnected, view.slot != .unknown else {
                endSession(&state, because: "the reader's link is down")
                state.reportedPresent = false
                return IFDCode.communicationError
            }
            guard view.hasCard else {
                endSession(&state, because: "the card was removed")
                state.reportedPresent = false
                return IFDCode.iccNotPresent
            }
            if case .powered = state.power, view.slot != .powered {
                // Powered off behind the driver's back (the link came and went).
                endSession(&state, because: "the card lost power")
            }
            if !state.reportedPresent { state.automaticPowerUpDue = true }
            state.reportedPresent = true
            return IFDCode.iccPresent
        }
    }

    /// IFDHPowerICC: the ATR for power-up and reset, nothing for power-down.
    package func power(_ action: IFDPowerAction) -> Result<[UInt8], IFDFailure> {
        state.withLock { state in
            let automatic = state.automaticPowerUpDue
            state.automaticPowerUpDue = false
            if action == .powerDown {
                endSession(&state, because: nil)
                return .success([])
            }
            guard case .reader(let view) = service.view(of: name.reader), view.isConnected else {
                endSession(&state, because: "the reader is not reachable")
                return .failure(IFDFailure(IFDCode.communicationError))
            }
            guard view.hasCard else {
                endSession(&state, because: "no card in the slot")
                return .failure(IFDFailure(IFDCode.errorPowerAction))
            }
            switch (action, state.power) {
            case (.powerUp, .powered(_, let atr)), (.powerUp, .promised(let atr)):
                return .success(atr)
            case (.reset, .powered(let lease, _)):
                // A program asked for a reset of the card it uses: power it off and on.
                return Result { () throws(DriverFailure) in
                    try BlockingCall.run { [service, name] () async throws(DriverFailure) in
                        try await service.powerOff(name.reader, lease: lease.id)
                    }
                    let atr = try powerOn(under: lease)
                    state.power = .powered(lease: lease, answerToReset: atr)
                    return atr
                }.mapError { failure in IFDFailure(fail(&state, failure, doing: "reset the card")) }
            case (.reset, .promised):
                // Not powered for the driver: its first APDU powers it, a reset as good.
                return .success(state.power.answerToReset)
            case (_, .off):
                if !view.answerToReset.isEmpty {
                    state.power = .promised(answerToReset: view.answerToReset)
                    return .success(view.answerToReset)
                }
                if automatic {
                    log.info("\(name.reader): card inserted; it is powered when a program connects (its ATR is not known yet)")
                    return .failure(IFDFailure(IFDCode.errorPowerAction))
                }
                return Result { () throws(DriverFailure) in
                    try powerSession(&state)
                    return state.power.answerToReset
                }
                    .mapError { failure in IFDFailure(fail(&state, failure, doing: "power the card")) }
            default:
                return .success(state.power.answerToReset)
            }
        }
    }

    /// IFDHTransmitToICC: one short command APDU, its response as the card gave it.
    package func transmit(_ apdu: [UInt8], responseCapacity: Int) -> Result<[UInt8], IFDFailure> {
        state.withLock { state in
            let command: CommandAPDU
            do throws(APDUError) {
                command = try CommandAPDU(parsing: apdu)
            } catch {
                log.error("\(name.reader): a command APDU of \(apdu.count) bytes does not parse: \(error)")
                return .failure(IFDFailure(IFDCode.communicationError))
            }
            guard !command.needsExtendedLength else {
                log.error("\(name.reader): refused an extended APDU (\(apdu.count) bytes): the reader carries short APDUs only")
                return .failure(IFDFailure(IFDCode.communicationError))
            }
            do throws(DriverFailure) {
                let lease: any ServiceLease
                switch state.power {
                case .off:
                    log.error("\(name.reader): an APDU for an unpowered card")
                    return .failure(IFDFailure(IFDCode.communicationError))
                case .promised(let promised):
                    lease = try powerSession(&state)
                    if state.power.answerToReset != promised {
                        log.info("\(name.reader): the card answered a different ATR than pcscd was given")
                    }
                case .powered(let held, _):
                    guard held.isHeld else {
                        throw DriverFailure(kind: .leaseEnded, message: "cardreaderd ended the session's lease")
                    }
                    lease = held
                }
                let response = try BlockingCall.run { [service, name] () async throws(DriverFailure) in
                    try await service.transmit(name.reader, lease: lease.id, apdu: apdu)
                }
                guard response.count <= responseCapacity else { return .failure(IFDFailure(IFDCode.errorInsufficientBuffer)) }
                return .success(response)
            } catch {
                return .failure(IFDFailure(fail(&state, error, doing: "exchange an APDU")))
            }
        }
    }

    /// The ATR pcscd was given, for IFDHGetCapabilities.
    package var answerToReset: [UInt8] { state.withLock { $0.power.answerToReset } }

    /// IFDHCloseChannel: the session ends, the lease with it.
    package func close() {
        state.withLock { endSession(&$0, because: nil) }
    }

    // MARK: - The session

    /// Takes the lease and powers the card: the session is then `powered`.
    @discardableResult
    private func powerSession(_ state: inout State) throws(DriverFailure) -> any ServiceLease {
        let lease = try takeLease()
        do throws(DriverFailure) {
            let atr = try powerOn(under: lease)
            state.power = .powered(lease: lease, answerToReset: atr)
            log.debug("\(name.reader): card powered for a PC/SC session")
            return lease
        } catch {
            lease.release()
            throw error
        }
    }

    /// The reader's lease; a lease the driver just released may take the service a moment
    /// to end, so `reader-held` is tried again for a little while.
    private func takeLease() throws(DriverFailure) -> any ServiceLease {
        try BlockingCall.run { [service, name, clock] () async throws(DriverFailure) in
            var attempt = 0
            while true {
                do throws(DriverFailure) {
                    return try await service.takeLease(on: name.reader)
                } catch where error.kind == .held && attempt < Self.leaseRetries {
                    attempt += 1
                    try? await clock.sleep(for: .milliseconds(100))
                }
            }
        }
    }

    /// How often `reader-held` is tried again (100 ms apart).
    private static let leaseRetries = 10

    private func powerOn(under lease: any ServiceLease) throws(DriverFailure) -> [UInt8] {
        try BlockingCall.run { [service, name] () async throws(DriverFailure) in
            try await service.powerOn(name.reader, lease: lease.id)
        }
    }

    /// Ends the driver's session on the reader, if it has one: the lease released (the
    /// service powers the card off), the ATR forgotten.
    private func endSession(_ state: inout State, because reason: String?) {
        if case .powered(let lease, _) = state.power {
            lease.release()
            if let reason { log.info("\(name.reader): the PC/SC session ended: \(reason)") }
        }
        state.power = .off
    }

    /// Logs `failure`, ends the session, and says what pcscd is told.
    private func fail(_ state: inout State, _ failure: DriverFailure, doing what: String) -> PCSCDriverResponse {
        log.error("\(name.reader): could not \(what): \(failure)")
        endSession(&state, because: nil)
        if failure.kind == .noCard { state.reportedPresent = false }
        return failure.response
    }
}
