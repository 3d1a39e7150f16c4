import ArgumentParser
import CardReaderKit
import CardReaderKitTesting

struct ScenariosCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenarios",
        abstract: "List the emulated reader's scenarios (--scenario) and built-in cards (--card).")

    func run() {
        print("Scenarios (--scenario STEP[,STEP…], repeatable):")
        print(EmulatorScenario.syntax)
        print()
        print("Built-in cards (--card NAME, or --card FILE for a card file such as Fixtures/cards/visa-test.json):")
        for card in EmulatedCard.builtIn {
            print("  \(card.name)")
        }
    }
}
