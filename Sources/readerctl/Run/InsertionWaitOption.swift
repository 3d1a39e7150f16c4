import ArgumentParser
import CardReaderKit

/// `--wait`: how long chip commands wait for a card to be inserted, and the prompt while they do.
struct InsertionWaitOption: ParsableArguments {
    @Option(
        name: .customLong("wait"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds to wait for a card to be inserted, 0-255 (0: fail at once if the slot is empty). Above 0, ICC STATUS asks first whether a card is in the slot (one command more in a scenario's count).",
            valueName: "seconds"))
    var seconds = 30

    var duration: Duration { .seconds(seconds) }

    func validate() throws {
        guard (0...255).contains(seconds) else { throw ValidationError("--wait must be within 0…255 seconds") }
    }

    /// Powers the card, asking for one ("Insert a card… 27 s left") when the slot is empty.
    func powerOn(_ reader: CardReader) async throws(CardReaderError) -> AnswerToReset {
        guard seconds > 0, try await reader.cardSlotState() == .noCard else {
            return try await reader.powerOnCard(waitingForInsertion: duration)
        }
        let prompt = CountdownPrompt(message: "Insert a card…", limit: duration).start()
        defer { prompt.cancel() }
        return try await reader.powerOnCard(waitingForInsertion: duration)
    }
}
