import CardReaderContract
import CardReaderKit
import CardReaderService
import Testing

/// What the daemon knows of a chip slot, from what the reader said (reader documentation
/// §3 ICC STATUS, §6 events) and what the daemon sent: never a command per client.
@Suite struct ChipSlotKnowledgeTests {
    /// The datasheet's example ATR (§9).
    let atr: [UInt8] = [0x3B, 0x68, 0x00, 0x00, 0x00, 0x73, 0xC8, 0x40, 0x13, 0x00, 0x90, 0x00]

    @Test func notKnownUntilTheReaderSays() {
        let slot = ChipSlotKnowledge()
        #expect(slot.state == .unknown)
        #expect(slot.message.state == .unspecified)
    }

    @Test func aPowerOnGivesTheATRUntilTheCardLeaves() {
        var slot = ChipSlotKnowledge()
        slot.cardInserted()
        slot.poweredOn(answerToReset: atr)
        #expect(slot.state == .powered && slot.answerToReset == atr)
        slot.poweredOff()
        #expect(slot.state == .present && slot.answerToReset == atr, "the same card is still there")
        #expect([UInt8](slot.message.atr) == atr && slot.message.state == .cardPresent)
        slot.cardRemoved()
        #expect(slot.state == .empty && slot.answerToReset.isEmpty)
    }

    @Test func aNewCardHasNoATRYet() {
        var slot = ChipSlotKnowledge()
        slot.cardInserted()
        slot.poweredOn(answerToReset: atr)
        slot.cardInserted()
        #expect(slot.state == .present && slot.answerToReset.isEmpty)
    }

    @Test func aLinkThatEndsForgetsTheSlot() {
        var slot = ChipSlotKnowledge()
        slot.cardInserted()
        slot.poweredOn(answerToReset: atr)
        slot.linkEnded()
        #expect(slot.state == .unknown && slot.answerToReset.isEmpty)
    }

    @Test func aSlotReadOvertakenByAnEventIsStale() {
        var slot = ChipSlotKnowledge()
        let started = slot.generation
        // The card leaves while ICC STATUS is under way; the answer (present) comes after.
        slot.cardRemoved()
        slot.slotRead(.cardPresent, startedAt: started)
        #expect(slot.state == .empty)
    }

    @Test(arguments: [(ICCSlotState.noCard, ChipSlotKnowledge.State.empty), (.cardPresent, .present), (.cardPowered, .powered)])
    func aSlotReadSaysWhatICCStatusAnswered(_ answer: ICCSlotState, _ expected: ChipSlotKnowledge.State) {
        var slot = ChipSlotKnowledge()
        slot.slotRead(answer, startedAt: slot.generation)
        #expect(slot.state == expected)
    }
}
