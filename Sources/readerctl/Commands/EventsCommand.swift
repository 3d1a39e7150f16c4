import ArgumentParser
import CardReaderKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print the reader's events as they come: card inserted or removed, battery low, reset warning.",
        discussion: """
            Runs until --count events have arrived, --duration has passed, the reader \
            disconnects (exit 6), or Ctrl-C or SIGTERM: each is how the stream normally ends \
            (exit 0, no error object with --json), except the disconnection. A Ctrl-C before \
            the reader is connected cancels the connection (exit 130).

            \(ExitStatus.help([.timedOut, .linkLost, .refused, .linkNotSecure, .unreadableInput, .recordingRefused, .cancelled]))
            """)

    @OptionGroup var selection: FleetSelectionOptions
    @OptionGroup var link: ReaderLinkOptions
    @OptionGroup var emulator: EmulatedReaderOptions
    @OptionGroup var output: OutputOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many events.", valueName: "n"))
    var count: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many seconds, 1-604800 (7 days).", valueName: "seconds"))
    var duration: Int?

    /// The readers the options name, and how they are reached.
    var reader: FleetReaderOptions { FleetReaderOptions(selection, link, emulator) }

    func validate() throws {
        try reader.validate()
        try output.checkRecording(readers: reader)
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        try OptionBounds.checkRun(duration: duration)
    }

    func run() async throws {
        let limit = count ?? Int.max
        let json = output.json
        let seconds = duration
        guard !reader.runsAsFleet else {
            // One stream per reader, each line labelled; --count and --duration apply to each.
            // Every reader streams at once: a stream may never end.
            let outcomes = try await FleetRun.perform(reader, maxParallel: .max) { label, reader throws(CardReaderError) in
                try await Self.follow(reader, label: label, limit: limit, seconds: seconds, json: json)
            }
            var first: CardReaderError?
            for outcome in outcomes {
                guard case .failure(let error) = outcome.result else { continue }
                StandardStreams.writeError("readerctl: \(outcome.label): \(error)\n")
                first = first ?? error
            }
            if let first { throw ExitStatus.of(first).exitCode }
            return
        }
        try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
            try await Self.follow(reader, label: nil, limit: limit, seconds: seconds, json: json)
        }
    }

    /// Prints `reader`'s events until `limit` of them, `seconds`, a disconnection or
    /// cancellation (Ctrl-C: not a failure); each line labelled when `label` is given.
    private static func follow(_ reader: CardReader, label: String?, limit: Int, seconds: Int?, json: Bool)
        async throws(CardReaderError)
    {
        let events = await reader.events()
        let outcome = await withTaskGroup(of: CardReaderError?.self) { group in
            group.addTask {
                var seen = 0
                for await event in events {
                    Self.print(event, label: label, json: json)
                    if case .disconnected(let reason) = event {
                        return reason.map { CardReaderError.linkLost($0) } ?? .notConnected
                    }
                    seen += 1
                    if seen >= limit { return nil }
                }
                return nil  // the stream ended, or Ctrl-C: a normal end
            }
            if let seconds {
                group.addTask {
                    try? await Task.sleep(for: .seconds(seconds))
                    return nil
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let outcome { throw outcome }
    }

    private static func print(_ event: CardReaderEvent, label: String?, json: Bool) {
        var fields: [String: FieldValue] = ["event": .text(event.name)]
        if let label { fields["reader"] = .text(label) }
        switch event {
        case .batteryLow(let percent): fields["batteryPercent"] = .integer(Int(percent))
        case .resetScheduled(let after): fields["secondsUntilReset"] = .integer(Int(after.components.seconds))
        case .unrecognized(let sub, let length):
            fields["sub"] = .text(String(sub, radix: 16, uppercase: true))
            fields["dataLength"] = .integer(length)
        case .reconnecting(let attempt, let reason):
            fields["attempt"] = .integer(attempt)
            fields["reason"] = .text(reason.description)
        case .disconnected(let reason?): fields["reason"] = .text(reason.description)
        default: break
        }
        if json {
            Output.print(fields, json: true)
        } else {
            Swift.print((label.map { "\($0): " } ?? "") + event.description)
        }
        fflush(nil)
    }
}
