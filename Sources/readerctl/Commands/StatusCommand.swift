import ArgumentParser
import CardReaderKit
import CommandLineOutput
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a reader's status: link, battery, firmware, an announced reset, why the link last ended.",
        discussion: """
            Connects, asks GET INFO (the firmware and, where the reader reports it, the \
            battery; over Bluetooth the Battery service gives it too) and prints the status. \
            With --watch it holds the reader as `readerctl events` does (reconnecting after \
            every drop, --keep-alive) and prints the status again at each change, until \
            Ctrl-C, SIGTERM or --duration (exit 0).

            A reader another process holds (BlueZ shows it connected, not by this command) \
            is sent no command: the status is what BlueZ knows of it (connected, paired, \
            signal, the Battery service's level).

            "link" is one of: disconnected, connecting, ready, busy, updating, reconnecting, \
            resetting, lost. "lastDisconnect" is the reason the SDK worked out: idle, \
            daily-reset, firmware-restart, host-disconnected, bluetooth-unavailable, \
            bond-lost, not-paired, reader-gone.

            \(ExitStatus.help([.timedOut, .linkLost, .refused, .linkNotSecure, .unreadableInput, .recordingRefused, .cancelled]))
            """)

    @OptionGroup var readerName: ReaderNameOption
    @OptionGroup var link: ReaderLinkOptions
    @OptionGroup var emulator: EmulatedReaderOptions
    @OptionGroup var lane: LaneOptions
    @OptionGroup var output: OutputOptions

    @Flag(help: "Keep the reader and print the status at each change.")
    var watch = false

    @Option(parsing: .unconditional, help: ArgumentHelp("With --watch, stop after this many seconds, 1-604800 (7 days).", valueName: "seconds"))
    var duration: Int?

    /// The reader the options name, held as a lane when watched.
    var reader: ReaderOptions { ReaderOptions(readerName, link, emulator, lane: watch ? lane : nil) }

    func validate() throws {
        try reader.validate()
        try OptionBounds.checkRun(duration: duration)
        if duration != nil, !watch { throw ValidationError("--duration applies to --watch only") }
    }

    func run() async throws {
        if let held = try await heldElsewhere() {
            return Output.print(Self.fields(held), json: output.json)
        }
        let json = output.json
        let watch = watch
        let seconds = duration
        try await ReaderRun.perform(reader, output) { reader throws(CardReaderError) in
            _ = try await reader.info()
            let now = await reader.status
            guard watch else { return Output.print(Self.fields(now), json: json) }
            await Self.watch(reader, seconds: seconds, json: json)
        }
    }

    /// The Bluetooth reader named, if BlueZ shows it connected before this command
    /// connects: another process holds it.
    private func heldElsewhere() async throws -> BlueZReaderDirectory.Entry? {
        guard !link.emulated, let name = reader.reader else { return nil }
        return try await CommandRun.perform { () throws(LinkError) -> BlueZReaderDirectory.Entry? in
            // Held elsewhere only when every reader the name matches is: a prefix that
            // matches another lane's reader too is connected to, as any command does.
            let matching = try await BlueZReaderDirectory.known(name, adapter: link.adapter)
            guard !matching.isEmpty, matching.allSatisfy(\.isConnected) else { return nil }
            return matching.first
        }
    }

    /// Prints the status now and at each change, until cancelled or `seconds` pass.
    private static func watch(_ reader: CardReader, seconds: Int?, json: Bool) async {
        let updates = await reader.statusUpdates()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await status in updates {
                    Output.print(Self.fields(status), json: json)
                    if !json { print("") }
                    fflush(nil)
                }
            }
            if let seconds {
                group.addTask { try? await Task.sleep(for: .seconds(seconds)) }
            }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// The status's fields: `link` (and its attempt and reason), the battery, the
    /// firmware, an announced reset, the last disconnect's reason.
    static func fields(_ status: CardReader.Status) -> [String: FieldValue] {
        var fields: [String: FieldValue] = ["link": .text(status.link.name)]
        switch status.link {
        case .busy(let command): fields["command"] = .text(command.commandName ?? "\(command)")
        case .updating(let progress):
            fields["updatePhase"] = .text(progress.phase.rawValue)
            fields["updatePercent"] = .integer(Int(progress.fractionCompleted * 100))
            if let left = progress.estimatedTimeRemaining { fields["updateSecondsLeft"] = .integer(Int(left.components.seconds)) }
        case .reconnecting(let attempt, let reason):
            fields["attempt"] = .integer(attempt)
            fields["reason"] = .text(reason.code.rawValue)
        case .lost(let reason):
            fields["reason"] = .text(reason.code.rawValue)
            if let fix = reason.fix { fields["fix"] = .text(fix) }
        default: break
        }
        if let battery = status.battery {
            fields["batteryPercent"] = .integer(Int(battery.percent))
            fields["batteryLow"] = .boolean(battery.isLow)
            fields["batterySource"] = .text(battery.source.rawValue)
            fields["batteryReadAt"] = .text("\(battery.readAt)")
        }
        if let version = status.firmwareVersion { fields["firmware"] = .text(version) }
        if let reset = status.resetExpected { fields["resetExpected"] = .text("\(reset)") }
        if let last = status.lastDisconnect {
            fields["lastDisconnect"] = .text(last.code.rawValue)
            fields["lastDisconnectDescription"] = .text(last.description)
        }
        return fields
    }

    /// What BlueZ knows of a reader another process holds.
    static func fields(_ held: BlueZReaderDirectory.Entry) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [
            "link": "held-elsewhere", "reader": .text(held.name), "address": .text(held.address),
            "paired": .boolean(held.isPaired),
        ]
        if let rssi = held.rssi { fields["rssi"] = .integer(Int(rssi)) }
        if let percent = held.batteryPercent {
            fields["batteryPercent"] = .integer(Int(percent))
            fields["batterySource"] = .text(BatteryReading.Source.batteryService.rawValue)
        }
        return fields
    }
}
