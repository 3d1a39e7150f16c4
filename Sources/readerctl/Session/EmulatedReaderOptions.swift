import ArgumentParser
import CardReaderKit
import FoundationEssentials

/// What the emulated reader holds and does: `--card` and `--scenario`.
struct EmulatedReaderOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Emulated reader: the card it holds, a card file such as Fixtures/cards/visa-test.json or a built-in card's name (default: visa-test).",
        valueName: "file|name"))
    var card: String?

    @Option(
        name: .customLong("scenario"),
        help: ArgumentHelp(
            "Emulated reader: what happens, e.g. swipe-after=2, bad-swipe, no-swipe, insert-after=1, remove-card-during-apdu, low-battery, busy, silent. Repeat to combine; 'readerctl scenarios' lists them all.",
            valueName: "scenario"))
    var scenarios: [String] = []

    var isDefault: Bool { card == nil && scenarios.isEmpty }

    /// The emulated reader these options describe.
    func makeReader() throws -> EmulatedReader {
        let scenario: EmulatorScenario
        do {
            scenario = try EmulatorScenario(parsing: scenarios)
        } catch {
            throw ValidationError("--scenario: \(error) ('readerctl scenarios' lists them)")
        }
        return EmulatedReader(card: try loadCard(), scenario: scenario)
    }

    private func loadCard() throws -> EmulatedCard {
        guard let card else { return .visaTest }
        if FileManager.default.fileExists(atPath: card) {
            do {
                return try EmulatedCard(contentsOf: URL(fileURLWithPath: card))
            } catch {
                throw ValidationError("--card: \(error)")
            }
        }
        if let builtIn = EmulatedCard.builtIn(named: card) { return builtIn }
        let names = EmulatedCard.builtIn.map(\.name).joined(separator: ", ")
        throw ValidationError("--card: no file '\(card)' and no built-in card of that name (built in: \(names))")
    }
}
