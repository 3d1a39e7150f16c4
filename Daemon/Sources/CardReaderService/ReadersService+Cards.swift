import CardReaderContract
import CardReaderKit
import FoundationEssentials
import GRPCCore
import GRPCProtobuf
import SwiftProtobuf

/// Card operations: a swipe, a chip session under a lease, an EMV read.
extension ReadersService {
    package func swipe(request: Cardreader_V1_SwipeRequest, context: ServerContext) async throws -> Cardreader_V1_SwipeResponse {
        let (caller, deadline) = try caller(of: context)
        let reader = try readers.named(request.reader)
        guard request.timeoutSeconds <= UInt32(UInt16.max) else {
            throw ServiceFailure.invalidArgument("timeout_seconds must be 0 (30) to 65535", reader: reader.name)
        }
        if request.reveal { try authorizeReveal(to: caller, on: reader, of: "a swipe unmasked") }
        let seconds = request.timeoutSeconds == 0 ? 30 : Int(request.timeoutSeconds)
        let stripe = try await leased(reader, leaseID: request.leaseID, caller: caller, command: "Swipe") { _ throws(GoogleRPCStatus) in
            try await perform(on: reader, until: deadline) { reader throws(CardReaderError) in
                try await reader.readMagneticStripe(timeout: .seconds(seconds))
            }
        }
        return .with {
            if let track = stripe.track1.track {
                $0.track1 = .with {
                    $0.primaryAccountNumber = Self.number(track.primaryAccountNumber, revealed: request.reveal)
                    $0.expiry = track.expiry?.yymm ?? ""
                    $0.serviceCode = track.serviceCode.map { "\($0)" } ?? ""
                    $0.cardholderName = request.reveal ? track.cardholderName.revealed() : ""
                    $0.passesLuhn = track.passesLuhn
                }
            }
            if let track = stripe.track2.track {
                $0.track2 = .with {
                    $0.primaryAccountNumber = Self.number(track.primaryAccountNumber, revealed: request.reveal)
                    $0.expiry = track.expiry?.yymm ?? ""
                    $0.serviceCode = track.serviceCode.map { "\($0)" } ?? ""
                    $0.passesLuhn = track.passesLuhn
                }
            }
            if case .absent = stripe.track3 {} else { $0.track3Present = true }
            $0.revealed = request.reveal
        }
    }

    package func hold(
        request: Cardreader_V1_HoldRequest, response: RPCWriter<Cardreader_V1_HoldUpdate>, context: ServerContext
    ) async throws {
        let (caller, _) = try caller(of: context)
        let reader = try readers.named(request.reader)
        let lease = try await reader.acquireLease(for: caller)
        let subscription = Subscription(capacity: subscriberBuffer)
        let id = await reader.subscribe(subscription)
        do {
            try await response.write(.with {
                $0.lease = .with {
                    $0.leaseID = lease.id
                    $0.reader = reader.name
                }
            })
            // The lease lasts while the stream does: until the client cancels, its
            // connection closes (the client died), or the daemon stops.
            try await withRPCCancellationHandler {
                for await update in subscription.updates {
                    guard case .status(let status) = update.update else { continue }
                    try await response.write(.with { $0.status = status })
                }
            } onCancelRPC: {
                subscription.finish()
            }
        } catch {
            await end(lease, of: reader, subscription: id)
            throw error
        }
        await end(lease, of: reader, subscription: id)
    }

    private func end(_ lease: HeldReader.Lease, of reader: HeldReader, subscription id: UInt64) async {
        await reader.unsubscribe(id)
        await reader.releaseLease(lease.id)
    }

    package func powerOn(request: Cardreader_V1_PowerOnRequest, context: ServerContext) async throws -> Cardreader_V1_PowerOnResponse {
        let (caller, deadline) = try caller(of: context)
        let reader = try readers.named(request.reader)
        guard request.insertionWaitSeconds <= 255 else {
            throw ServiceFailure.invalidArgument("insertion_wait_seconds must be 0 to 255", reader: reader.name)
        }
        let wait = Duration.seconds(Int(request.insertionWaitSeconds))
        let atr = try await leased(reader, leaseID: request.leaseID, caller: caller, command: "PowerOn", requiresLease: true) {
            lease throws(GoogleRPCStatus) in
            let atr = try await perform(on: reader, until: deadline) { reader throws(CardReaderError) in
                try await reader.powerOnCard(waitingForInsertion: wait)
            }
            await reader.noteCard(powered: true, lease: lease.id)
            await reader.noteChipSlot { $0.poweredOn(answerToReset: atr.bytes) }
            return atr
        }
        return .with { $0.atr = Data(atr.bytes) }
    }

    package func transmit(request: Cardreader_V1_TransmitRequest, context: ServerContext) async throws -> Cardreader_V1_TransmitResponse {
        let (caller, deadline) = try caller(of: context)
        let reader = try readers.named(request.reader)
        // The card's own bytes go back as they are: only a caller that may have card data.
        try authorizeReveal(to: caller, on: reader, of: "APDUs")
        let apdu: CommandAPDU
        do throws(APDUError) {
            apdu = try CommandAPDU(parsing: [UInt8](request.apdu))
        } catch {
            throw ServiceFailure.invalidArgument("the APDU does not parse: \(error)", reader: reader.name)
        }
        guard !apdu.needsExtendedLength else {
            throw ServiceFailure.invalidArgument(
                "the reader carries short APDUs only (at most 255 data bytes, Le at most 256)", reader: reader.name)
        }
        let answer = try await leased(reader, leaseID: request.leaseID, caller: caller, command: "Transmit", requiresLease: true) {
            _ throws(GoogleRPCStatus) in
            try await perform(on: reader, until: deadline) { reader throws(CardReaderError) in
                try await reader.transmit(apdu, options: .raw)
            }
        }
        return .with { $0.response = Data(answer.encoded().revealed()) }
    }

    package func powerOff(request: Cardreader_V1_PowerOffRequest, context: ServerContext) async throws -> Cardreader_V1_PowerOffResponse {
        let (caller, deadline) = try caller(of: context)
        let reader = try readers.named(request.reader)
        try await leased(reader, leaseID: request.leaseID, caller: caller, command: "PowerOff", requiresLease: true) {
            lease throws(GoogleRPCStatus) in
            try await perform(on: reader, until: deadline) { reader throws(CardReaderError) in try await reader.powerOffCard() }
            await reader.noteCard(powered: false, lease: lease.id)
            await reader.noteChipSlot { $0.poweredOff() }
        }
        return Cardreader_V1_PowerOffResponse()
    }

    package func readEMV(request: Cardreader_V1_ReadEMVRequest, context: ServerContext) async throws -> Cardreader_V1_ReadEMVResponse {
        let (caller, deadline) = try caller(of: context)
        let reader = try readers.named(request.reader)
        guard request.insertionWaitSeconds <= 255 else {
            throw ServiceFailure.invalidArgument("insertion_wait_seconds must be 0 (30) to 255", reader: reader.name)
        }
        if request.reveal { try authorizeReveal(to: caller, on: reader, of: "an EMV read unmasked") }
        let wait = Duration.seconds(request.insertionWaitSeconds == 0 ? 30 : Int(request.insertionWaitSeconds))
        let card = try await leased(reader, leaseID: request.leaseID, caller: caller, command: "ReadEMV") { _ throws(GoogleRPCStatus) in
            let (card, atr) = try await perform(on: reader, until: deadline) { cardReader throws(CardReaderError) in
                let atr = try await cardReader.powerOnCard(waitingForInsertion: wait)
                do throws(CardReaderError) {
                    let card = try await cardReader.readEMVCard()
                    try await cardReader.powerOffCard()
                    return (card, atr.bytes)
                } catch {
                    try? await cardReader.powerOffCard()
                    throw error
                }
            }
            await reader.noteChipSlot {
                $0.poweredOn(answerToReset: atr)
                $0.poweredOff()
            }
            return card
        }
        return .with {
            $0.applicationIdentifier = card.applicationIdentifierHex
            $0.applicationLabel = card.applicationLabel ?? ""
            $0.applicationName = card.applicationName ?? ""
            $0.primaryAccountNumber = Self.number(card.primaryAccountNumber, revealed: request.reveal)
            $0.expiry = card.expiry?.yymm ?? ""
            if request.reveal { $0.cardholderName = card.cardholderName?.revealed() ?? "" }
            if let sequence = card.panSequenceNumber { $0.panSequenceNumber = UInt32(sequence) }
            $0.revealed = request.reveal
        }
    }

    /// The card number, masked unless `revealed`.
    static func number(_ number: PrimaryAccountNumber, revealed: Bool) -> String {
        revealed ? number.revealed() : number.masked
    }
}
