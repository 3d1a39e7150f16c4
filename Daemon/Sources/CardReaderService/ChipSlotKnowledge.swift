import CardReaderContract
import CardReaderKit
import FoundationEssentials
import SwiftProtobuf

/// What the daemon knows of a reader's chip slot, learned without a command per client:
/// ICC STATUS once per connection, then the reader's card events and the power-ons and
/// power-offs the daemon sent for its clients. A client (the PC/SC driver polling for a
/// card) reads this instead of the radio.
package struct ChipSlotKnowledge: Sendable, Hashable {
    package enum State: Sendable, Hashable {
        /// Not connected, or not read yet.
        case unknown
        case empty
        case present
        case powered
    }

    package private(set) var state = State.unknown
    /// The ATR of the card in the slot, from its last power-on since it was inserted.
    package private(set) var answerToReset: [UInt8] = []
    /// Counts what the reader said on its own (events, link changes): a slot read begun
    /// before the latest of them is stale when it ends.
    package private(set) var generation: UInt64 = 0

    package init() {}

    /// The reader reported a card inserted (`E0 01`).
    package mutating func cardInserted() {
        change(to: .present)
    }

    /// The reader reported the card removed (`E0 02`), or a command found no card.
    package mutating func cardRemoved() {
        change(to: .empty)
    }

    /// The link ended: the reader powers the card off, and a card may change meanwhile.
    package mutating func linkEnded() {
        change(to: .unknown)
    }

    /// An ICC STATUS answer to a read begun at `generation`: ignored when the reader said
    /// something since, which is newer.
    package mutating func slotRead(_ slot: ICCSlotState, startedAt generation: UInt64) {
        guard generation == self.generation else { return }
        switch slot {
        case .noCard: change(to: .empty)
        case .cardPresent: state = .present
        case .cardPowered: state = .powered
        }
    }

    /// The daemon powered the card for a client; `atr` is its answer.
    package mutating func poweredOn(answerToReset atr: [UInt8]) {
        state = .powered
        answerToReset = atr
    }

    /// The daemon powered the card off (the ATR stays: the same card is still there).
    package mutating func poweredOff() {
        if state == .powered { state = .present }
    }

    private mutating func change(to new: State) {
        generation &+= 1
        state = new
        answerToReset = []
    }

    /// As the contract says it.
    package var message: Cardreader_V1_ChipSlot {
        .with {
            $0.state =
                switch state {
                case .unknown: .unspecified
                case .empty: .empty
                case .present: .cardPresent
                case .powered: .cardPowered
                }
            $0.atr = Data(answerToReset)
        }
    }
}
