import ArgumentParser
import CardReaderKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging

/// Runs one operation against the chosen reader: connect, operate, disconnect. Ctrl-C
/// cancels it (the reader gets CANCEL); errors are printed for a person (and as JSON with
/// `--json`) and become readerctl's documented exit statuses.
enum ReaderRun {
    static func perform<Result: Sendable>(
        _ options: ReaderOptions, _ output: OutputOptions,
        _ operation: @escaping @Sendable (CardReader) async throws(CardReaderError) -> Result
    ) async throws -> Result {
        let recording = output.record.map { SessionRecording(path: $0, command: CommandLine.arguments.dropFirst().first ?? "") }
        let direct = try options.connector()
        let connector: any ReaderConnector = recording.map { RecordingConnector(connector: direct, recording: $0) } ?? direct
        var logger = Logger(label: "readerctl")
        logger.logLevel = options.verbose ? .trace : .warning
        let reader = CardReader(connector: connector, logger: logger)
        // The connector's own deadline is --connect-timeout; the reader's comes a little
        // later, so the connector's specific error (not found, and what was seen instead)
        // is the one reported.
        let timeout = Duration.milliseconds(Int(options.connectTimeout * 1000)) + Self.connectGrace
        let interrupt = InterruptSignal()
        let task = Task { () -> Swift.Result<Result, CardReaderError> in
            do throws(CardReaderError) {
                try await reader.connect(timeout: timeout)
                let result = try await operation(reader)
                await reader.disconnect()
                return .success(result)
            } catch {
                await reader.disconnect()
                return .failure(error)
            }
        }
        interrupt.cancels(task)
        let outcome = await task.value
        withExtendedLifetime(interrupt) {}
        // The session up to a failure is worth keeping too; a refused recording fails the command.
        let recorded = Swift.Result { () throws(ExitCode) in try recording?.finish(revealingCardData: output.reveal) }
        switch outcome {
        case .success(let result):
            try recorded.get()
            return result
        case .failure(let error):
            report(error, json: output.json)
            throw ExitStatus.of(error).exitCode
        }
    }

    /// How much longer the reader waits for a connection than its connector.
    static let connectGrace = Duration.seconds(1)

    static func report(_ error: CardReaderError, json: Bool) {
        ErrorReport.write(error.description, fix: error.fix)
        if json {
            var fields = ["error": error.identifier, "message": error.description]
            fields["fix"] = error.fix
            Output.print(fields, json: true)
        }
    }
}
