import ArgumentParser
import CardReaderKit
import CardReaderKitTesting
import FoundationEssentials
import Logging

/// What the emulated reader holds and does: `--card` and `--scenario`, each checked as it
/// is parsed.
struct EmulatedReaderOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Emulated reader: the card it holds, a card file such as Fixtures/cards/visa-test.json or a built-in card's name (default: visa-test).",
            valueName: "file|name"),
        completion: Completions.card,
        transform: CardArgument.init(parsing:))
    var card: CardArgument?

    @Option(
        name: .customLong("scenario"),
        help: ArgumentHelp(
            "Emulated reader: what happens, e.g. swipe-after=2, bad-swipe, no-swipe, insert-after=1, remove-card-during-apdu, low-battery, busy, silent. Repeat to combine; 'readerctl scenarios' lists them all.",
            valueName: "scenario"),
        completion: Completions.scenario,
        transform: ScenarioArgument.init(parsing:))
    var scenarios: [ScenarioArgument] = []

    @Option(
        help: ArgumentHelp(
            "Emulated reader: the firmware it runs (default 3.1.0). From 3.0 it needs an encrypted link and pairs; before 3.0 it neither pairs nor encrypts, and card operations need --allow-unencrypted.",
            valueName: "version"),
        transform: FirmwareArgument.init(parsing:))
    var firmware: FirmwareArgument?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Emulated reader: how many hosts it keeps a bond with, 1-8 (default 8, as the reader). When one more pairs, the oldest bond is dropped, and that host must pair again.",
            valueName: "count"))
    var maxBonds: Int?

    var isDefault: Bool { card == nil && scenarios.isEmpty && firmware == nil && maxBonds == nil }

    func validate() throws {
        if let maxBonds, !(1...8).contains(maxBonds) {
            throw ValidationError("--max-bonds takes 1…8 (the reader keeps at most 8 bonds)")
        }
    }

    /// The emulated reader these options describe. It logs to `logger` when one is given
    /// (`readerctl emulate`: what the reader does, for the person driving it from another
    /// host), else nowhere.
    func makeReader(logger: Logger? = nil) -> EmulatedReader {
        guard let logger else { return EmulatedReader(card: heldCard, scenario: scenario, configuration: configuration) }
        return EmulatedReader(card: heldCard, scenario: scenario, configuration: configuration, logger: logger)
    }

    /// `--card`'s card (default: the Visa test card).
    var heldCard: EmulatedCard { card?.card ?? .visaTest }

    /// `--scenario`'s steps, in order.
    var scenario: EmulatorScenario {
        var scenario = EmulatorScenario()
        for argument in scenarios { argument.apply(to: &scenario) }
        return scenario
    }

    /// The default configuration, with `--firmware` and `--max-bonds`.
    var configuration: EmulatedReaderConfiguration {
        var configuration = EmulatedReaderConfiguration()
        if let firmware { configuration.info.firmwareVersion = firmware.version }
        if let maxBonds { configuration.maximumBonds = maxBonds }
        return configuration
    }
}

/// `--card`: a card file or a built-in card's name, loaded when the option is parsed.
struct CardArgument: Sendable {
    let card: EmulatedCard

    init(parsing text: String) throws {
        let names = EmulatedCard.builtIn.map(\.name).joined(separator: ", ")
        if let builtIn = EmulatedCard.builtIn(named: text), !FileManager.default.fileExists(atPath: text) {
            card = builtIn
            return
        }
        // A path: a name with a slash or a .json, or anything that exists.
        guard text.contains("/") || text.hasSuffix(".json") || FileManager.default.fileExists(atPath: text) else {
            throw ValidationError("no card file \(text), and no built-in card of that name (built in: \(names))")
        }
        if let problem = NamedFile(path: text, role: "card file").readProblem {
            throw ValidationError("\(problem); fix: \(problem.fix) (or a built-in card: \(names))")
        }
        do {
            card = try EmulatedCard(contentsOf: URL(fileURLWithPath: text))
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

/// `--scenario`: one or more comma-separated steps, each checked when the option is
/// parsed; applied in order, later steps overriding earlier ones.
struct ScenarioArgument: Sendable {
    private let steps: [String]

    init(parsing text: String) throws {
        var scratch = EmulatorScenario()
        var steps: [String] = []
        for step in text.split(separator: ",", omittingEmptySubsequences: true) {
            let step = String(step.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
            do {
                try scratch.apply(step)
            } catch {
                throw ValidationError("\(error) ('readerctl scenarios' lists the steps)")
            }
            steps.append(step)
        }
        self.steps = steps
    }

    /// Applies the steps, which parsing has checked.
    func apply(to scenario: inout EmulatorScenario) {
        for step in steps { try? scenario.apply(step) }
    }
}

/// `--firmware`: a version as GET INFO reports it (printable ASCII, at most 32 bytes).
struct FirmwareArgument: Sendable {
    let version: String

    init(parsing text: String) throws {
        guard !text.isEmpty, text.utf8.count <= 32, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") })
        else {
            throw ValidationError("give a version such as 3.1.0 or 2.4.1 (letters, digits, '.' and '-', at most 32)")
        }
        version = text
    }
}
