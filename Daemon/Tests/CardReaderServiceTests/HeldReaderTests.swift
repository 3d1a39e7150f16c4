import CardReaderContract
import CardReaderKit
import CardReaderKitTesting
import CardReaderService
import GRPCProtobuf
import Logging
import Testing

/// One reader's lease: a chip session belongs to one client at a time, and its end powers
/// off a card its holder left powered. Against the emulated reader.
@Suite(.timeLimit(.minutes(1))) struct HeldReaderTests {
    static let pos = Caller(identity: .localUser(name: "pos", uid: 1001, processID: 42))
    static let other = Caller(identity: .localUser(name: "kiosk", uid: 1002, processID: 43))

    func heldReader() async throws -> HeldReader {
        let reader = CardReader(
            connector: EmulatedReaderConnector(
                reader: EmulatedReader(card: .visaTest, scenario: try EmulatorScenario(parsing: ["card-inserted"]))))
        try await reader.connect()
        return HeldReader(name: "lane-1", summary: "emulated", reader: reader, logger: Logger(label: "test"))
    }

    func reason(_ body: () async throws(GoogleRPCStatus) -> Void) async -> String? {
        do throws(GoogleRPCStatus) {
            try await body()
            return nil
        } catch {
            return error.details.first?.errorInfo?.reason
        }
    }

    @Test func anotherClientIsRefusedWhileTheLeaseLasts() async throws {
        let held = try await heldReader()
        let lease = try await held.acquireLease(for: Self.pos)
        #expect(await reason { () throws(GoogleRPCStatus) in _ = try await held.acquireLease(for: Self.other) } == "reader-held")
        #expect(await reason { () throws(GoogleRPCStatus) in _ = try await held.lease("", for: Self.other, command: "Swipe", requiresLease: false) } == "reader-held")
        #expect(await reason { () throws(GoogleRPCStatus) in _ = try await held.lease("f00", for: Self.other, command: "PowerOn", requiresLease: true) } == "reader-held")
        #expect(try await held.lease(lease.id, for: Self.pos, command: "PowerOn", requiresLease: true).id == lease.id)
        #expect(await held.statusMessage.heldBy == "pos")
        await held.releaseLease(lease.id)
        #expect(await held.statusMessage.heldBy == "")
        #expect(await reason { () throws(GoogleRPCStatus) in _ = try await held.lease("", for: Self.other, command: "PowerOn", requiresLease: true) } == "lease-required")
        let temporary = try await held.lease("", for: Self.other, command: "Swipe", requiresLease: false)
        #expect(temporary.isTemporary)
    }

    @Test func theLeasesEndPowersOffTheCardItsHolderLeftPowered() async throws {
        let held = try await heldReader()
        let lease = try await held.acquireLease(for: Self.pos)
        _ = try await held.reader.powerOnCard(waitingForInsertion: .zero)
        await held.noteCard(powered: true, lease: lease.id)
        #expect(try await held.reader.cardSlotState() == .cardPowered)
        await held.releaseLease(lease.id)
        #expect(try await held.reader.cardSlotState() == .cardPresent)
    }

    @Test func theChipSlotIsReadOnceAtTheConnectionAndFollowsTheReadersEvents() async throws {
        let held = try await heldReader()
        let subscription = Subscription(capacity: 64)
        _ = await held.subscribe(subscription)
        await held.start()
        defer { Task { await held.stop() } }
        var updates = subscription.updates.makeAsyncIterator()
        // The card is in the slot from the start (the scenario): ICC STATUS says so.
        while let update = await updates.next() {
            if case .status(let status) = update.update, status.chipSlot.state == .cardPresent { break }
        }
        #expect(await held.statusMessage.chipSlot.atr.isEmpty, "not powered since it was inserted")
        let atr = try await held.reader.powerOnCard(waitingForInsertion: .zero)
        await held.noteChipSlot { $0.poweredOn(answerToReset: atr.bytes) }
        let status = await held.statusMessage
        #expect(status.chipSlot.state == .cardPowered)
        #expect([UInt8](status.chipSlot.atr) == [0x3B, 0x68, 0x00, 0x00, 0x00, 0x73, 0xC8, 0x40, 0x13, 0x00, 0x90, 0x00])
    }
}
