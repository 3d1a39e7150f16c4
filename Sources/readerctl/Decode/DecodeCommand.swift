import ArgumentParser
import CommandLineOutput
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ReaderProtocol

struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode recorded BLE packets into frames, messages and damage reports.",
        discussion: """
            Each input is a recording: one packet per line, '>' for a host-to-reader write, \
            '<' for a reader-to-host notification, hex bytes with or without spaces, an \
            optional timestamp (seconds) before the mark, '#' comments. A btsnoop capture \
            (btmon -w, Android's HCI snoop log) works too: the ATT writes to the reader's RX \
            characteristic and its TX notifications are taken, as the central saw them, and \
            'line' is the capture's record number. Packets are \
            reassembled per direction as the reader's frames are, and every frame is printed \
            in order with its command, status and decoded fields; every damaged region \
            (noise, bad length, bad checksum, truncated tail) with its offset and reason, \
            consecutive damage of one kind as one record. Records are printed as the input \
            is read; a malformed line ends that input after what came before it.

            Card numbers are masked (first 6, last 4 digits); cardholder names, discretionary \
            data, track 3 and APDU data are left out unless --reveal is given.

            --expect FILE compares the decoded records with a golden file (NAME.expected.jsonl, \
            one record per line as --json prints them) instead of printing them: records in \
            order; detail (prose) and source are not compared; fields only where the expected \
            record has them, an expected value * taking any value. It prints each difference, \
            or that the recording matches.

            Exit status:
              0  every frame intact and decodable (--expect: the records match)
              1  damage or an undecodable frame was found (--expect: the records differ)
              2  an input or the expected file could not be read, or is not a recording
              64 usage error
            """
    )

    @Argument(help: ArgumentHelp("Recordings to decode; '-' reads standard input.", valueName: "file"), completion: Completions.recording)
    var files: [String]

    @Flag(help: "Print one JSON object per frame or damage record (fields in the README).")
    var json = false

    @Flag(help: "Show card data in full: card numbers, names, discretionary data, APDU data.")
    var reveal = false

    @Option(
        help: ArgumentHelp(
            "Compare the records with FILE, a golden file of --json records (NAME.expected.jsonl), instead of printing them.",
            valueName: "file"),
        completion: .file(extensions: ["jsonl"]))
    var expect: String?

    /// Every file is checked before any is decoded.
    func validate() throws {
        if let expect {
            guard files.count == 1 else { throw ValidationError("--expect compares one recording: give one file") }
            try NamedFile(path: expect, role: "expected file").checkReadable(exitStatus: .unreadableInput)
        }
        for file in files where file != "-" {
            try NamedFile(path: file, role: "recording").checkReadable(exitStatus: .unreadableInput)
        }
    }

    func run() throws {
        if let expect, let source = files.first { try GoldenCheck.run(recording: source, expected: expect, revealingCardData: reveal) }
        var status = ExitStatus.success
        let output = DecodeOutput(json: json, showSource: files.count > 1)
        for source in files {
            output.begin(source: source)
            var decoder = RecordingDecoder()
            var session = EMVSessionContext()
            let report = { (entry: RecordingDecoder.Entry) in
                var record = DecodedRecord(entry, revealingCardData: reveal, session: &session)
                record.source = source
                output.print(record)
                if record.type == "damage" || record.kind == "invalid", status == ExitStatus.success {
                    status = ExitStatus.damageFound
                }
            }
            var failure: RecordingInput.Failure?
            do {
                try RecordingInput.forEachPacket(in: source) { decoder.decode($0, report) }
            } catch {
                failure = error
            }
            // What came before a malformed line is reported, then the line.
            decoder.finish(report)
            if let failure {
                ErrorReport.write("decode: \(failure)", fix: failure.fix)
                status = ExitStatus.unreadableInput
            }
        }
        throw status.exitCode
    }
}
