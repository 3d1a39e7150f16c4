import ArgumentParser
import CommandLineOutput
import FoundationEssentials
import ReaderProtocol

/// `readerctl decode RECORDING --expect FILE`: the recording's records against a golden
/// file, under the convention of ``GoldenRecords``; exits 0 when they match, 1 when they
/// differ (each difference on standard output), 2 when an input cannot be used.
enum GoldenCheck {
    static func run(recording source: String, expected path: String, revealingCardData reveal: Bool) throws -> Never {
        let expected = try expectedRecords(in: path)
        var records: [DecodedRecord] = []
        var decoder = RecordingDecoder()
        var session = EMVSessionContext()
        let keep = { (entry: RecordingDecoder.Entry) in
            records.append(DecodedRecord(entry, revealingCardData: reveal, session: &session))
        }
        do {
            try RecordingInput.forEachPacket(in: source) { decoder.decode($0, keep) }
        } catch {
            ErrorReport.write("decode: \(error)", fix: error.fix)
            throw ExitStatus.unreadableInput.exitCode
        }
        decoder.finish(keep)
        let differences = GoldenRecords.differences(actual: records, expected: expected)
        guard !differences.isEmpty else {
            print("\(source) matches \(path): \(records.count) records")
            throw ExitStatus.success.exitCode
        }
        for difference in differences.prefix(50) { print(difference) }
        if differences.count > 50 { print("… and \(differences.count - 50) more") }
        StandardStreams.writeError("readerctl: \(source) differs from \(path) in \(differences.count) places\n")
        throw ExitStatus.damageFound.exitCode
    }

    /// The golden file's records, one JSON object per line (blank lines skipped).
    private static func expectedRecords(in path: String) throws(ExitCode) -> [DecodedRecord] {
        let bytes = try NamedFile(path: path, role: "expected file").read(exitStatus: .unreadableInput)
        var records: [DecodedRecord] = []
        for (number, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.allSatisfy(\.isWhitespace) {
            do {
                records.append(try JSONDecoder().decode(DecodedRecord.self, from: Data(line.utf8)))
            } catch {
                ErrorReport.write(
                    "line \(number + 1) of the expected file \(path) is not a decoded record",
                    fix: "each line is one JSON object as `readerctl decode --json` prints it (type, direction, line, offset, length, …)")
                throw ExitStatus.unreadableInput.exitCode
            }
        }
        return records
    }
}
