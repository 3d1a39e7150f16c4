import Foundation
import Testing

/// readerctl's help, command by command, against the text kept in `Help/`: a change to the
/// help shows in review as a change to those files. After changing the help on purpose,
/// `READERCTL_RECORD_HELP=1 swift test --filter HelpTextTests` writes the new text there
/// (and fails, so the run is not mistaken for a pass); read the diff before committing it.
@Suite struct HelpTextTests {
    static let commands = [
        "info", "pair", "unpair", "bonds", "swipe", "power-on", "apdu", "emv", "events", "status", "update-firmware", "decode", "scan", "gatt", "emulate",
        "scenarios", "doctor",
    ]

    static let directory = ReaderctlProcess.repositoryRoot.appendingPathComponent("Tests/readerctlTests/Help")

    @Test(arguments: [nil] + commands.map(Optional.some))
    func theHelpIsTheReviewedText(command: String?) async throws {
        // A fixed width: the help wraps to the terminal's, and a pipe has none.
        let result = try await ReaderctlProcess.run(["help"] + (command.map { [$0] } ?? []), environment: ["COLUMNS": "100"])
        #expect(result.status == 0)
        let file = Self.directory.appendingPathComponent("\(command ?? "readerctl").txt")
        if ProcessInfo.processInfo.environment["READERCTL_RECORD_HELP"] == "1" {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try result.standardOutput.write(to: file, atomically: true, encoding: .utf8)
            Issue.record("recorded \(file.lastPathComponent): review the diff")
            return
        }
        let kept = try String(contentsOf: file, encoding: .utf8)
        #expect(result.standardOutput == kept, "readerctl help \(command ?? ""): the help changed; see the test's comment")
        // The manual page is made from the same text by argument-parser's generate-manual,
        // which drops every character outside ASCII: "23…247" would read "23247" there.
        let foreign = result.standardOutput.unicodeScalars.filter { !$0.isASCII }.map(String.init)
        #expect(foreign.isEmpty, "readerctl help \(command ?? ""): \(Set(foreign).sorted()) would be dropped from the manual")
    }

    /// `readerctl --help` has every exit status; a subcommand's help, only those it can end
    /// with (swipe: a bad swipe, never an unusable firmware image), and where the rest are.
    @Test func eachHelpListsTheExitStatusesOfItsCommand() async throws {
        let overview = try await ReaderctlProcess.run(["help"], environment: ["COLUMNS": "100"]).standardOutput
        for status in ["0    success", "4    bad swipe", "9    update-firmware", "10   doctor", "12   the reader needs pairing"] {
            #expect(overview.contains(status), "\(status)")
        }
        let swipe = try await ReaderctlProcess.run(["help", "swipe"], environment: ["COLUMNS": "100"]).standardOutput
        #expect(swipe.contains("Exit status (every status: readerctl --help):"))
        #expect(swipe.contains("4    bad swipe") && swipe.contains("64   usage error"))
        #expect(!swipe.contains("9    update-firmware") && !swipe.contains("10   doctor"))
        let firmware = try await ReaderctlProcess.run(["help", "update-firmware"], environment: ["COLUMNS": "100"]).standardOutput
        #expect(firmware.contains("9    update-firmware") && !firmware.contains("4    bad swipe"))
    }

    /// Every subcommand has its text kept, and nothing is kept for a command that is gone.
    @Test func everyCommandsHelpIsKept() async throws {
        let kept = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".txt") }
        #expect(Set(kept) == Set((["readerctl"] + Self.commands).map { "\($0).txt" }))
        let overview = try await ReaderctlProcess.run(["help"], environment: ["COLUMNS": "100"]).standardOutput
        for command in Self.commands { #expect(overview.contains("  \(command) "), "\(command) is not in readerctl's help") }
    }
}
