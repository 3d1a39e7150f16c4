import ArgumentParser
import BLETransport
import CardReaderKit
import CommandLineOutput

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check what Bluetooth needs on this machine, step by step, and say how to fix what fails.",
        discussion: """
            Why can't readerctl reach a reader? doctor checks, in order: libdbus loadable, the \
            system bus reachable, bluetoothd running (org.bluez on the bus; its process and \
            version), the bus's policy letting you talk to bluetoothd (a GetManagedObjects \
            call), an adapter present, powered, not blocked by rfkill, able to act as an LE \
            central, the links each adapter holds (a warning at --le-link-limit), and an LE \
            discovery seeing advertisements. With --reader it goes on: the \
            reader found, connected, its data service, TX and RX characteristics and their \
            flags, notifications enabled, GET INFO answered.

            Each check prints one line (ok, WARN, FAIL or skipped, what it found, how long it \
            took) and under a FAIL or WARN the fix (the same hint every readerctl command and \
            the library's errors give). A check that needs a failed one is skipped. The exit \
            status is 0 when every check holds (a warning holds), 10 otherwise.

            \(ExitStatus.help([.doctorFailed, .cancelled]))
            """)

    @Option(help: ArgumentHelp("The adapter to check, e.g. hci1 (default: the first powered one).", valueName: "hciN"))
    var adapter: String?

    @Option(help: ArgumentHelp(
        "Also check this reader: its advertised name or a prefix of it (VPOS3356-1A2B, VPOS), or its address.",
        valueName: "name|address"))
    var reader: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Seconds the discovery listens for advertisements (with --reader: at most, until the reader is seen).",
        valueName: "seconds"))
    var scanTimeout = Seconds(5)

    @Option(parsing: .unconditional, help: ArgumentHelp("With --reader: seconds to connect and resolve its services.", valueName: "seconds"))
    var connectTimeout = Seconds(15)

    @Option(help: ArgumentHelp(
        "Warn when an adapter holds this many connected devices: controllers hold about 5 to 7 LE links, a figure neither BlueZ nor the kernel reports, so this is an assumption.",
        valueName: "count"))
    var leLinkLimit = 5

    @Flag(help: "Print one JSON object: {\"ok\": ..., \"checks\": [{\"check\", \"status\", \"found\", \"fix\", \"milliseconds\"}, ...]}.")
    var json = false

    func validate() throws {
        try ReaderNameCheck.check(reader)
        try OptionBounds.checkConnect(timeout: scanTimeout, option: "--scan-timeout")
        try OptionBounds.checkConnect(timeout: connectTimeout)
        guard (1...64).contains(leLinkLimit) else {
            throw ValidationError("--le-link-limit must be 1 to 64 (controllers hold about 5 to 7 LE links)")
        }
    }

    func run() async throws {
        let diagnosis = Diagnosis(
            adapter: adapter, reader: reader, scanTimeout: scanTimeout.duration,
            connectTimeout: connectTimeout.duration, leLinkLimit: leLinkLimit)
        let json = json
        try await CommandRun.perform { () throws(DoctorVerdict) in
            let report = DoctorReport(json: json)
            await diagnosis.run(into: report)
            report.skipRemaining(of: diagnosis.steps)
            report.finish(readerChecked: diagnosis.reader != nil)
            if Task.isCancelled { throw .cancelled }
            if !report.allHold { throw .checksFailed }
        }
    }
}

/// How a diagnosis that did not end well ends: its report says why already.
enum DoctorVerdict: CommandFailure {
    /// A check failed; its FAIL line says how to fix it.
    case checksFailed
    /// Ctrl-C stopped the diagnosis.
    case cancelled

    var exitStatus: ExitStatus { self == .cancelled ? .cancelled : .doctorFailed }
    var identifier: String { self == .cancelled ? "cancelled" : "checks-failed" }
    var message: String? { nil }
    var fix: String? { nil }
}
