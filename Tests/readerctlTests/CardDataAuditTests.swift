import Foundation
import Testing
import TestEnvironment

/// No card data leaves readerctl without --reveal: every subcommand that can run without a
/// radio, under every scenario the emulated reader has, in text and JSON, at --verbose
/// (frames logged at trace level), over a card file whose card number, name and
/// discretionary data appear nowhere else. Each output is searched for those values as
/// text (the number also in groups of four, the name also in parts and JSON-escaped), as
/// the hex of their ASCII bytes and as the hex of their BCD nibbles, with and without
/// spaces, and for every seven consecutive digits of the card number (masking shows the
/// first six and the last four). Every run must end in one of readerctl's outcomes
/// (never a usage error or a crash); a sanitizer report fails it too (ReaderctlProcess).
///
/// The subcommands left out need bluetoothd (scan, gatt, emulate: the VM suite runs them)
/// or print no card data by construction (scenarios).
@Suite struct CardDataAuditTests {
    /// An EMVCo test card number (Luhn-valid), a name and discretionary data that no other
    /// fixture uses, so a hit can only come from this card.
    static let pan = "4761739001010010"
    static let name = "PATEL/AMARA"
    static let discretionary = "7654321980"

    static let cardFile: URL = {
        let track1 = "%B\(pan)^\(name)^2811201\(discretionary)000000?"
        let track2 = ";\(pan)=2811201\(discretionary)?"
        let json = """
            {
              "format": 1, "name": "audit-card",
              "magneticStripe": { "track1": "\(track1)", "track2": "\(track2)" },
              "chip": {
                "atr": "3B 68 00 00 00 73 C8 40 13 00 90 00",
                "applications": [{
                  "aid": "A0000000031010", "label": "VISA CREDIT", "priority": 1,
                  "pdol": "9F0206 9F1A02 5F2A02 9F3704", "aip": "1C00",
                  "records": [
                    { "sfi": 1, "record": 1, "objects": [
                      { "tag": "57", "value": "\(pan) D2811201 \(discretionary)0F" },
                      { "tag": "5F20", "text": "\(name)" } ] },
                    { "sfi": 1, "record": 2, "objects": [
                      { "tag": "5A", "value": "\(pan)" }, { "tag": "5F24", "value": "281130" } ] }
                  ]
                }]
              }
            }
            """
        // One file whatever the run: its content never changes, and an atomic write leaves a
        // concurrent run reading the whole of it.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("card-data-audit.json")
        try? Data(json.utf8).write(to: url, options: .atomic)
        return url
    }()

    /// A value as text and as the hex of its ASCII bytes, and digits also as the hex of
    /// their BCD nibbles; hex with and without spaces; upper-cased.
    static func forms(_ value: String) -> [String] {
        let ascii = value.utf8.map { String($0, radix: 16, uppercase: true) }
        var forms = [value.uppercased(), ascii.joined(), ascii.joined(separator: " ")]
        if value.allSatisfy(\.isNumber) {
            let digits = Array(value)
            let pairs = stride(from: 0, to: digits.count, by: 2).map { String(digits[$0..<min($0 + 2, digits.count)]) }
            forms.append(pairs.joined(separator: " "))
        }
        return forms
    }

    static let secrets: [String] = {
        let digits = Array(pan)
        let windows = (0...(digits.count - 7)).map { String(digits[$0..<($0 + 7)]) }
        let groups = stride(from: 0, to: digits.count, by: 4).map { String(digits[$0..<min($0 + 4, digits.count)]) }
        let nameParts = name.split(separator: "/").map(String.init)
        return forms(pan) + windows + [groups.joined(separator: " "), name.replacingOccurrences(of: "/", with: "\\/")]
            + forms(name) + nameParts + [nameParts.reversed().joined(separator: " ")] + forms(discretionary)
    }()

    /// readerctl's documented exit statuses other than a usage error (64).
    static let outcomes: Set<Int32> = [0, 1, 3, 4, 5, 6, 7, 12]

    /// The secrets found in a run's output; names the run, the stream and the form.
    static func leaks(in result: ReaderctlProcess.Result, of secrets: [String] = secrets) -> [String] {
        [("stdout", result.standardOutput), ("stderr", result.standardError)].flatMap { stream, text in
            let upper = text.uppercased()
            return secrets.filter { !$0.isEmpty && upper.contains($0) }.map { "\(stream) holds \($0)" }
        }
    }

    /// Scenario steps with values that make each run short, by the name `readerctl
    /// scenarios` lists; a scenario missing here fails the test, so a new one gets audited.
    static let stepValues: [String: String] = [
        "swipe-after": "swipe-after=1", "insert-after": "insert-after=1", "remove-after": "remove-after=1",
        "reset-after": "reset-after=1", "slow-connect": "slow-connect=1", "battery": "battery=50",
        "reset-every": "reset-every=1", "idle-timeout": "idle-timeout=1", "battery-drain": "battery-drain=3600",
        "battery-charge": "battery-charge=3600",
        "corrupt-notification": "corrupt-notification=3", "drop-notification": "drop-notification=3",
        "drop-in-frame": "drop-in-frame=2", "duplicate-in-frame": "duplicate-in-frame=2",
        "corrupt-frame": "corrupt-frame=2", "reorder-frame": "reorder-frame=2", "cut-frame": "cut-frame=2",
        "duplicate-frame": "duplicate-frame=2", "late-answer": "late-answer=2", "wrong-code": "wrong-code=2",
        "refuse-write": "refuse-write=2", "drop-before-answer": "drop-before-answer=2",
        "malformed-answer": "malformed-answer=2", "reject": "reject=C107:07", "card-sw": "card-sw=B2:6985",
        "no-swipe": "no-swipe", "bad-swipe": "bad-swipe", "card-inserted": "card-inserted",
        "remove-card-during-apdu": "remove-card-during-apdu", "low-battery": "low-battery", "busy": "busy=2",
        "silent": "silent=2", "noise": "noise", "drop-mid-frame": "drop-mid-frame",
        "restart-mid-frame": "restart-mid-frame", "false-stx": "false-stx=2", "false-stx-split": "false-stx-split=2",
        "firmware-nak": "firmware-nak=2", "firmware-cancel-at": "firmware-cancel-at=1",
        "firmware-drop-at": "firmware-drop-at=1", "firmware-slow-ack": "firmware-slow-ack=1",
        "firmware-corrupt": "firmware-corrupt", "firmware-no-restart": "firmware-no-restart",
        "firmware-keeps-version": "firmware-keeps-version", "insert-when-asked": "insert-when-asked=1",
        "no-insert": "no-insert", "firmware-uart": "firmware-uart=512:11520",
        "not-in-pairing-mode": "not-in-pairing-mode", "bond-forgotten": "bond-forgotten", "passkey": "passkey",
        "wrong-passkey": "wrong-passkey", "pairing-stalls": "pairing-stalls",
    ]

    /// SELECT PPSE, SELECT the application, GET PROCESSING OPTIONS with its PDOL's 14
    /// bytes, and READ RECORD of both records that hold card data.
    static let apdus = [
        "00A404000E325041592E5359532E444446303100", "00A4040007A000000003101000",
        "80A8000010830E" + String(repeating: "00", count: 14) + "00", "00B2010C00", "00B2020C00",
    ]

    /// The commands a scenario is audited with, text and JSON.
    static func commands(for step: String) -> [[String]] {
        let card = ["--emulated", "--card", cardFile.path, "--verbose", "--scenario", step]
        let insertsLater = step.hasPrefix("insert-after") || step.hasPrefix("insert-when-asked")
        let chip = insertsLater ? card + ["--wait", "2"] : card + ["--scenario", "card-inserted", "--wait", "0"]
        let commands = [
            ["swipe", "--timeout", "2"] + card, ["emv"] + chip, ["apdu"] + chip + apdus, ["power-on"] + chip,
        ]
        return commands + commands.map { $0 + ["--json"] }
    }

    /// The scenario names `readerctl scenarios` lists.
    static func listedScenarios() async throws -> [String] {
        let listing = try await ReaderctlProcess.run(["scenarios"]).standardOutput
        return listing.split(separator: "\n")
            .prefix { !$0.hasPrefix("Built-in cards") }
            .dropFirst()
            .filter { !$0.hasPrefix(" ") }
            .compactMap { $0.split(whereSeparator: { "=[ ".contains($0) }).first.map(String.init) }
    }

    /// Runs every command concurrently (as many at once as `ReaderctlProcess` allows; most
    /// of them wait on timers); the outputs, by command.
    static func runAll(_ commands: [[String]]) async throws -> [([String], ReaderctlProcess.Result)] {
        try await withThrowingTaskGroup(of: ([String], ReaderctlProcess.Result).self) { group in
            for command in commands {
                group.addTask { (command, try await ReaderctlProcess.run(command, timeout: 30)) }
            }
            var results: [([String], ReaderctlProcess.Result)] = []
            while let result = try await group.next() {
                results.append(result)
            }
            return results
        }
    }

    /// The audit can fail: with --reveal the same runs show the card number, name and
    /// discretionary data, in the forms searched for.
    @Test func theSearchFindsCardDataThatIsRevealed() async throws {
        let swipe = try await ReaderctlProcess.run(["swipe", "--emulated", "--card", Self.cardFile.path, "--reveal"])
        #expect(swipe.status == 0, "\(swipe.standardError)")
        let found = Self.leaks(in: swipe)
        #expect(found.contains("stdout holds \(Self.pan)"))
        #expect(found.contains("stdout holds \(Self.name)"))
        #expect(found.contains("stdout holds \(Self.discretionary)"))
        let masked = try await ReaderctlProcess.run(["swipe", "--emulated", "--card", Self.cardFile.path])
        #expect(masked.standardOutput.contains("476173******0010"))

        let apdu = try await ReaderctlProcess.run(
            ["apdu", "--emulated", "--card", Self.cardFile.path, "--scenario", "card-inserted", "--reveal"]
                + Self.apdus)
        #expect(apdu.status == 0, "\(apdu.standardError)")
        #expect(Self.leaks(in: apdu).contains("stdout holds 47 61 73 90 01 01 00 10"))
    }

    @Test(.enabled(if: LongTests.enabled, Comment(rawValue: LongTests.reason))) func noScenarioLeaksCardDataFromAnySubcommand() async throws {
        let scenarios = try await Self.listedScenarios()
        #expect(scenarios.count >= 30)
        let unknown = scenarios.filter { Self.stepValues[$0] == nil }
        #expect(unknown.isEmpty, "scenarios the audit has no value for: \(unknown)")

        let commands = scenarios.compactMap { Self.stepValues[$0] }.flatMap(Self.commands(for:))
        let results = try await Self.runAll(commands)
        #expect(results.count == commands.count)
        for (command, result) in results {
            let found = Self.leaks(in: result)
            #expect(found.isEmpty, "readerctl \(command.joined(separator: " ")): \(found)")
            #expect(Self.outcomes.contains(result.status), "readerctl \(command.joined(separator: " ")): \(result.status)")
        }
        // Under the plain card-inserted scenario every subcommand succeeded and carried card
        // data, masked: the audit looked at real output, not at early failures.
        func scenarioSteps(_ command: [String]) -> [String] {
            zip(command, command.dropFirst()).filter { $0.0 == "--scenario" }.map(\.1)
        }
        let baseline = results.filter { scenarioSteps($0.0).allSatisfy { $0 == "card-inserted" } }
        for subcommand in ["swipe", "emv", "apdu", "power-on"] {
            let runs = baseline.filter { $0.0.first == subcommand }
            #expect(runs.count >= 2 && runs.allSatisfy { $0.1.status == 0 }, "\(subcommand) under card-inserted")
        }
        let outputs = baseline.map { $0.1.standardOutput }.joined()
        #expect(outputs.contains("476173******0010"))
        #expect(outputs.contains("\"aid\":\"A0000000031010\""))
        #expect(outputs.contains("9000"))
    }

    /// Subcommands outside the scenario matrix: info and events (no card data to show, but
    /// verbose frame logs), and decode of every recording and capture in Fixtures, which
    /// hold the documentation's test card (4111 1111 1111 1111, DOE/JOHN).
    @Test(.enabled(if: LongTests.enabled, Comment(rawValue: LongTests.reason))) func otherSubcommandsLeakNothing() async throws {
        let fixtureCard = Self.forms("4111111111111111") + Self.forms("4111111") + Self.forms("DOE/JOHN")
        let recordings = try FileManager.default.contentsOfDirectory(
            atPath: ReaderctlProcess.repositoryRoot.appendingPathComponent("Fixtures/packets").path
        ).filter { $0.hasSuffix(".txt") }.map { "Fixtures/packets/\($0)" } + ["Fixtures/captures/bluez-session.btsnoop"]
        #expect(recordings.count > 10)
        let decodes = recordings.flatMap { [["decode", $0], ["decode", "--json", $0]] }
        let card = ["--emulated", "--card", Self.cardFile.path, "--verbose"]
        let others = [
            ["info"] + card, ["info", "--json"] + card,
            ["events", "--duration", "1", "--scenario", "insert-after=1"] + card,
            ["events", "--json", "--duration", "1", "--scenario", "remove-after=1", "--scenario", "card-inserted"]
                + card,
        ]
        for (command, result) in try await Self.runAll(decodes + others) {
            let found = Self.leaks(in: result, of: command[0] == "decode" ? fixtureCard : Self.secrets)
            #expect(found.isEmpty, "readerctl \(command.joined(separator: " ")): \(found)")
            #expect(Self.outcomes.contains(result.status), "readerctl \(command.joined(separator: " ")): \(result.status)")
        }
    }
}
