import ArgumentParser
import CardReaderKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging

/// Runs one operation against the chosen reader through ``CommandRun``: connect, operate,
/// disconnect. Ctrl-C cancels it (the reader gets CANCEL).
enum ReaderRun {
    static func perform<Result: Sendable>(
        _ options: some ReaderSelection, _ output: OutputOptions,
        _ operation: @escaping @Sendable (CardReader) async throws(CardReaderError) -> Result
    ) async throws -> Result {
        let recording = output.record.map { RunRecording(path: $0, command: CommandLine.arguments.dropFirst().first ?? "") }
        let direct = try options.connector()
        let connector: any ReaderConnector = recording.map { RecordingConnector(connector: direct, recording: $0) } ?? direct
        let logger = options.link.logger(label: "readerctl")
        // The connector's own deadline is --connect-timeout; the reader's comes a little
        // later, so the connector's specific error (not found, and what was seen instead)
        // is the one reported. A reconnection (events, status --watch) gets as long.
        let timeout = options.link.connectTimeout.duration + Self.connectGrace
        let reader = CardReader(
            connector: connector, configuration: options.readerConfiguration(connectTimeout: timeout), logger: logger)
        return try await CommandRun.perform(json: output.json, recording: recording, revealingCardData: output.reveal) {
            () throws(CardReaderError) in
            do throws(CardReaderError) {
                try await reader.connect(timeout: timeout)
                let result = try await operation(reader)
                await reader.disconnect()
                return result
            } catch {
                await reader.disconnect()
                throw error
            }
        }
    }

    /// How much longer the reader waits for a connection than its connector.
    static let connectGrace = Duration.seconds(1)
}
