import ArgumentParser
import CardReaderKit
import Foundation

/// Builds the connector the reader options name.
enum ConnectorFactory {
    static func connector(for options: ReaderOptions) throws -> any ReaderConnector {
        if let name = options.reader {
            return BlueZReaderConnector(reader: name, adapter: options.adapter, timeout: .seconds(options.connectTimeout))
        }
        let scenario: EmulatorScenario
        do {
            scenario = try EmulatorScenario(parsing: options.scenarios)
        } catch {
            throw ValidationError("--scenario: \(error) ('readerctl scenarios' lists them)")
        }
        let reader = EmulatedReader(card: try card(options.card), scenario: scenario)
        return EmulatedReaderConnector(reader: reader, mtu: options.mtu)
    }

    /// A card file, or a built-in card's name; the built-in Visa test card by default.
    private static func card(_ argument: String?) throws -> EmulatedCard {
        guard let argument else { return .visaTest }
        if FileManager.default.fileExists(atPath: argument) {
            do {
                return try EmulatedCard(contentsOf: URL(fileURLWithPath: argument))
            } catch {
                throw ValidationError("--card: \(error)")
            }
        }
        if let card = EmulatedCard.builtIn(named: argument) { return card }
        let names = EmulatedCard.builtIn.map(\.name).joined(separator: ", ")
        throw ValidationError("--card: no file '\(argument)' and no built-in card of that name (built in: \(names))")
    }
}
