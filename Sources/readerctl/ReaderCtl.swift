import ArgumentParser
import CommandLineOutput
import Logging

@main
struct ReaderCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "readerctl",
        abstract: "Drive and inspect VPOS-class Bluetooth LE card readers.",
        discussion: """
            Every subcommand that talks to a reader takes --reader NAME|ADDRESS (and \
            --adapter hciN) for a Bluetooth reader through BlueZ, or --emulated for the \
            built-in emulated reader, with --card and --scenario to choose what it holds and does.

            \(ExitStatus.help)
            """,
        subcommands: [
            InfoCommand.self, PairCommand.self, UnpairCommand.self, BondsCommand.self, SwipeCommand.self, PowerOnCommand.self, APDUCommand.self, EMVCommand.self,
            EventsCommand.self, StatusCommand.self, UpdateFirmwareCommand.self, DecodeCommand.self, ScanCommand.self, GattCommand.self, EmulateCommand.self, ScenariosCommand.self,
            DoctorCommand.self,
        ]
    )

    /// Logs go to standard error, so standard output stays the result alone.
    static func main() async {
        InterruptSignal.install()
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let repeated = CommandLineCheck.repeatedOption(in: arguments) {
            StandardStreams.writeError(
                "Error: \(repeated) is given twice; give it once (--scenario repeats, and --reader for info, events and update-firmware)\n")
            exit(withError: ExitStatus.usage.exitCode)
        }
        do {
            var command: ParsableCommand
            do {
                command = try parseAsRoot()
            } catch {
                // Help, which the parser answers first, and a line that parses cost no
                // search through every command's help text.
                guard exitCode(for: error) != .success else { throw error }
                // An option another command takes, then a mistyped command or option: what
                // is wrong with the name and the likely one, before anything the parser
                // concluded from the mistake (an option unknown to no command, a reader
                // not named).
                if let misplaced = CommandLineCheck.misplacedOption(in: arguments) {
                    StandardStreams.writeError("Error: \(misplaced) (readerctl \(arguments[0]) --help lists its options)\n")
                    exit(withError: ExitStatus.usage.exitCode)
                }
                guard let mistake = CommandLineCheck.mistake(in: arguments) else { throw error }
                StandardStreams.writeError("Error: \(mistake)\n")
                exit(withError: ExitStatus.usage.exitCode)
            }
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            if let status = DeferredExitStatus.status { exit(withError: status) }
        } catch {
            exit(withError: error)
        }
    }
}
