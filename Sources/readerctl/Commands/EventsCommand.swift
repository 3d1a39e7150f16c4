import ArgumentParser
import CardReaderKit
import CommandLineOutput
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print the reader's events as they come: card inserted or removed, battery, reset warning, link dropped and back.",
        discussion: """
            Holds the reader as a lane does: a link the reader drops (its idle rule, its \
            daily reset, out of range) is an event with its reason (link-dropped), and the \
            reader is reconnected for as long as it takes (reconnected); --keep-alive keeps an \
            idle link up. A drop found later to be bluetoothd or the adapter going away, and \
            the announced reset coming while the reader is being reconnected, print as \
            drop-reason-revised. Battery levels print as they change.

            Runs until --count of the reader's own events have arrived, --duration has \
            passed, or Ctrl-C or SIGTERM: each is how the stream normally ends (exit 0, no \
            error object with --json). A reader that refuses this host's bond, or that this \
            host is not paired with, cannot come back without a person: that ends it (exit 6). \
            A Ctrl-C before the reader is connected cancels the connection (exit 130).

            \(ExitStatus.help([.timedOut, .linkLost, .refused, .linkNotSecure, .unreadableInput, .recordingRefused, .cancelled]))
            """)

    @OptionGroup var selection: FleetSelectionOptions
    @OptionGroup var link: ReaderLinkOptions
    @OptionGroup var emulator: EmulatedReaderOptions
    @OptionGroup var lane: LaneOptions
    @OptionGroup var output: OutputOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many events.", valueName: "n"))
    var count: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many seconds, 1-604800 (7 days).", valueName: "seconds"))
    var duration: Int?

    /// The readers the options name, and how they are reached.
    var reader: FleetReaderOptions { FleetReaderOptions(selection, link, emulator, lane: lane) }

    func validate() throws {
        try reader.validate()
        try output.checkRecording(readers: reader)
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        try OptionBounds.checkRun(duration: duration)
    }

    func run() async throws {
        if let warning = lane.warning { StandardStreams.writeError("readerctl: \(warning)\n") }
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

    /// Prints `reader`'s events, and its link and battery as they change, until `limit` of
    /// the reader's events, `seconds`, the connection's end (a reader no attempt brings
    /// back) or cancellation (Ctrl-C: not a failure); each line labelled when `label` is given.
    private static func follow(_ reader: CardReader, label: String?, limit: Int, seconds: Int?, json: Bool)
        async throws(CardReaderError)
    {
        let events = await reader.events()
        let statuses = await reader.statusUpdates()
        let outcome = await withTaskGroup(of: CardReaderError?.self) { group in
            group.addTask {
                var seen = 0
                for await event in events {
                    switch event {
                    case .reconnecting, .reconnected:
                        continue  // the link's changes print from the status, with their reason
                    case .disconnected(let reason):
                        return reason.map { CardReaderError.linkLost($0) } ?? .notConnected
                    default:
                        Self.print(event, label: label, json: json)
                    }
                    seen += 1
                    if seen >= limit { return nil }
                }
                return nil  // the stream ended, or Ctrl-C: a normal end
            }
            group.addTask {
                var last: CardReader.Status?
                for await status in statuses {
                    Self.printChanges(from: last, to: status, label: label, json: json)
                    last = status
                }
                // Only cancellation ends it: the other task decides the outcome.
                return nil
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

    /// The link dropped (with the reason the reader inferred), came back, or is lost; the
    /// battery level changed.
    private static func printChanges(from old: CardReader.Status?, to new: CardReader.Status, label: String?, json: Bool) {
        if let old, old.link.name != new.link.name {
            let away: Set = ["reconnecting", "resetting"]
            switch (old.link, new.link) {
            case (_, .lost(let reason)):
                printLink("link-lost", reason, label: label, json: json)
            case (_, .reconnecting), (_, .resetting):
                // From a link in use (ready, busy, an update's): a drop. Between the two
                // names of one reconnection, nothing new unless the drop's reason changed.
                if !away.contains(old.link.name) {
                    printLink("link-dropped", new.lastDisconnect, label: label, json: json)
                } else if new.lastDisconnect != old.lastDisconnect {
                    printLink("drop-reason-revised", new.lastDisconnect, label: label, json: json)
                }
            case (.reconnecting, _), (.resetting, _):
                if new.link.acceptsCommands { printLink("reconnected", nil, label: label, json: json) }
            default:
                break
            }
        } else if let old, case .reconnecting = new.link, new.lastDisconnect != old.lastDisconnect {
            // What the reconnection found (bluetoothd gone) says what the drop was.
            printLink("drop-reason-revised", new.lastDisconnect, label: label, json: json)
        }
        // A battery-low event prints as the reader's own event.
        if let battery = new.battery, battery.percent != old?.battery?.percent, battery.source != .lowBatteryEvent {
            var fields: [String: FieldValue] = [
                "event": "battery", "batteryPercent": .integer(Int(battery.percent)), "low": .boolean(battery.isLow),
                "source": .text(battery.source.rawValue),
            ]
            if let label { fields["reader"] = .text(label) }
            emit(fields, text: "battery \(battery.percent)%\(battery.isLow ? ", low" : "") (\(battery.source))", label: label, json: json)
        }
    }

    private static func printLink(_ name: String, _ reason: DisconnectReason?, label: String?, json: Bool) {
        var fields: [String: FieldValue] = ["event": .text(name)]
        if let label { fields["reader"] = .text(label) }
        var text = name
        if let reason {
            fields["reason"] = .text(reason.code.rawValue)
            fields["description"] = .text(reason.description)
            if let fix = reason.fix { fields["fix"] = .text(fix) }
            text += ": \(reason)"
        }
        emit(fields, text: text, label: label, json: json)
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
        default: break
        }
        emit(fields, text: event.description, label: label, json: json)
    }

    private static func emit(_ fields: [String: FieldValue], text: String, label: String?, json: Bool) {
        if json {
            Output.print(fields, json: true)
        } else {
            Swift.print((label.map { "\($0): " } ?? "") + text)
        }
        fflush(nil)
    }
}
