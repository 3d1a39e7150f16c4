import ArgumentParser
import CardReaderKit
import CardReaderContract
import CommandLineOutput
import GRPCCore
import SwiftProtobuf

struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print the readers' events and status changes as the service follows them.",
        discussion: """
            Follows every reader (or the --reader ones): each event the reader sends \
            (card-inserted, card-removed, battery-low, reset-scheduled), and each change of its \
            link (link-dropped with its reason, reconnected, link-lost). Runs until --count \
            events, --duration seconds, or Ctrl-C (exit 0).
            """)

    @OptionGroup var service: ServiceOptions

    @Option(help: ArgumentHelp("Follow this reader; repeat for several (default: every one).", valueName: "name"))
    var reader: [String] = []

    @Option(help: ArgumentHelp("Stop after this many events.", valueName: "n"))
    var count: Int?

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Int?

    func run() async throws {
        let request = Cardreader_V1_WatchReadersRequest.with { $0.readers = reader }
        let (limit, json, seconds) = (count ?? .max, service.json, duration)
        do {
            try await ServiceCall.perform(service) { client in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await client.watchReaders(request) { response in
                            var last: [String: Cardreader_V1_ReaderStatus] = [:]
                            var seen = 0
                            for try await update in response.messages {
                                for fields in Self.lines(for: update, after: last[update.reader]) {
                                    Output.print(fields, json: json)
                                    if fields["event"].map({ !["status"].contains("\($0)") }) == true { seen += 1 }
                                }
                                if case .status(let status) = update.update { last[update.reader] = status }
                                if seen >= limit { return }
                            }
                        }
                    }
                    if let seconds {
                        group.addTask { try await Task.sleep(for: .seconds(seconds)) }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch let exit as ExitCode where exit.rawValue == ExitStatus.cancelled.rawValue || exit.rawValue == 143 {
            // Ctrl-C (or SIGTERM) is how a stream of events normally ends.
            return
        }
    }

    /// What an update prints: the reader's event, or what changed in its link.
    static func lines(for update: Cardreader_V1_ReaderUpdate, after old: Cardreader_V1_ReaderStatus?) -> [[String: FieldValue]] {
        var lines: [[String: FieldValue]] = []
        switch update.update {
        case .event(let event):
            var fields: [String: FieldValue] = ["event": .text(event.name), "reader": .text(update.reader)]
            if event.name == "battery-low" { fields["batteryPercent"] = .integer(Int(event.batteryPercent)) }
            if event.name == "reset-scheduled" { fields["secondsUntilReset"] = .integer(Int(event.secondsUntilReset)) }
            // The link's own changes come with the status: printed from it, below.
            if !["reconnecting", "reconnected", "disconnected"].contains(event.name) { lines.append(fields) }
        case .status(let status):
            guard let old else { break }
            let away: Set<Cardreader_V1_ReaderStatus.Link> = [.reconnecting, .resetting]
            var fields: [String: FieldValue] = ["reader": .text(update.reader)]
            if status.link == .lost, old.link != .lost {
                fields["event"] = "link-lost"
            } else if away.contains(status.link), !away.contains(old.link) {
                fields["event"] = "link-dropped"
            } else if away.contains(old.link), status.link == .ready {
                fields["event"] = "reconnected"
            }
            if fields["event"] != nil {
                if status.hasLastDisconnect, fields["event"] != "reconnected" {
                    fields["reason"] = .text(status.lastDisconnect.code)
                    if !status.lastDisconnect.fix.isEmpty { fields["fix"] = .text(status.lastDisconnect.fix) }
                }
                lines.append(fields)
            }
        case nil:
            break
        }
        if update.dropped > 0 {
            lines.append(["event": "updates-dropped", "reader": .text(update.reader), "count": .integer(Int(update.dropped))])
        }
        return lines
    }
}
