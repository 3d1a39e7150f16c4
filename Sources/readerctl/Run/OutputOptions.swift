import ArgumentParser
import CommandLineOutput

/// How results are printed.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of text: one object per line, numbers as numbers (every field: Docs/readerctl.md, JSON output).")
    var json = false

    @Flag(help: "Show card data in full: card numbers, names, discretionary data, APDU data.")
    var reveal = false

    @Option(help: ArgumentHelp(
        "Record the run's writes and notifications, timestamped, in FILE (the format decode reads). Written only when every card in it is a published test card, or with --reveal.",
        valueName: "file"), completion: Completions.recording)
    var record: String?

    /// `--record`'s file can be written: checked before any reader is touched, so a session
    /// is never lost to a recording that cannot be kept.
    func validate() throws {
        if let record { try NamedFile(path: record, role: "recording").checkWritable(exitStatus: .unreadableInput) }
    }

    /// `--record` takes one reader.
    func checkRecording(readers: FleetReaderOptions) throws {
        guard record == nil || !readers.runsAsFleet else {
            throw ValidationError("--record records one reader's session: not with several --reader, --all or --emulated-fleet")
        }
    }
}
