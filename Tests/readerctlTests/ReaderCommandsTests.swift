import Foundation
import Testing

/// readerctl's reader subcommands against the built-in emulated reader, run as a person or
/// a script would. Card values are the built-in test cards' (Fixtures/cards): Visa
/// 4111 1111 1111 1111 expiring 2512, Mastercard 5555 5555 5555 4444 expiring 2712.
@Suite struct ReaderCommandsTests {
    @Test func swipePrintsTracksMaskedAndExitsZero() async throws {
        let result = try await ReaderctlProcess.run(["swipe", "--emulated"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("track2.pan:         411111******1111"))
        #expect(!result.standardOutput.contains("4111111111111111"))
        #expect(result.standardError.contains("Swipe a card…"))
    }

    @Test(arguments: [
        (["swipe", "--emulated", "--scenario", "bad-swipe"], Int32(4), "swipe again"),
        (["swipe", "--emulated", "--scenario", "no-swipe", "--timeout", "1"], 3, "no card was swiped in time"),
        (["power-on", "--emulated", "--wait", "0"], 5, "no card in the chip slot"),
        (["power-on", "--emulated", "--scenario", "no-insert", "--wait", "1"], 3, "no card was inserted in time"),
        (["info", "--emulated", "--scenario", "drop-mid-frame"], 6, "link to the reader was lost"),
        (["swipe", "--emulated", "--scenario", "low-battery"], 7, "battery is too low"),
        (["swipe", "--emulated", "--timeout", "0"], 64, "--timeout must be within"),
        (["info"], 64, "--emulated"),
    ])
    func outcomesHaveTheirExitStatusAndAMessage(arguments: [String], status: Int32, message: String) async throws {
        let result = try await ReaderctlProcess.run(arguments)
        #expect(result.status == status, "\(arguments)")
        #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
    }

    /// The answer comes behind line damage (an MCU restart mid-frame, a false STX in noise,
    /// one split across notifications): `info` still prints it and exits 0, at both MTUs.
    @Test(arguments: ["restart-mid-frame", "false-stx", "false-stx-split"], ["23", "247"])
    func infoBehindLineDamageSucceeds(scenario: String, mtu: String) async throws {
        let result = try await ReaderctlProcess.run(["info", "--emulated", "--scenario", scenario, "--mtu", mtu])
        #expect(result.status == 0, "\(scenario) at MTU \(mtu): \(result.standardError)")
        #expect(result.standardOutput.contains("VPOS3356"))
    }

    /// Absurd numbers end as usage errors at parse time, never as a crash (9223372036854775807
    /// seconds used to trap in Duration arithmetic).
    @Test(arguments: [
        ["events", "--emulated", "--duration", "9223372036854775807"],
        ["events", "--emulated", "--duration", "0"],
        ["scan", "--duration", "99999"],
        ["emulate", "--duration=-1"],
        ["gatt", "--reader", "VPOS", "--connect-timeout", "inf"],
        ["info", "--reader", "VPOS", "--connect-timeout", "nan"],
        ["swipe", "--emulated", "--timeout", "9223372036854775807"],
    ])
    func absurdNumbersAreUsageErrors(arguments: [String]) async throws {
        let result = try await ReaderctlProcess.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains("must be within"), "\(arguments): \(result.standardError)")
    }

    /// Several adapters are for several readers: one reader names one adapter, and the
    /// message says how to name several.
    @Test(arguments: [["info", "--reader", "VPOS3356-0001"], ["events", "--reader", "VPOS3356-0001"]])
    func severalAdaptersForOneReaderAreAUsageError(arguments: [String]) async throws {
        let result = try await ReaderctlProcess.run(arguments + ["--adapter", "hci1,hci2"])
        #expect(result.status == 64, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains("several adapters (--adapter hci1,hci2) are for several readers"))
    }

    /// A reader that never answers: one line says so, and one what to check. The CANCEL
    /// that follows the timeout meets the link readerctl has just closed, which is no
    /// failure worth a warning.
    @Test func aTimeoutIsReportedInOneLineWithWhatToCheck() async throws {
        let result = try await ReaderctlProcess.run(["power-on", "--emulated", "--scenario", "silent", "--scenario", "card-inserted", "--wait", "0"])
        #expect(result.status == 3)
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3, "\(result.standardError)")
        #expect(lines.first == "readerctl: the reader did not answer ICC POWER ON within 3.0 seconds")
        #expect(lines.dropFirst().first?.hasPrefix("  fix: make sure the reader is on and in range") == true)
    }

    /// Scenarios, cards and APDUs are checked as the arguments are parsed: a usage error
    /// (64) naming the problem, before any reader is made. An APDU is named by its position,
    /// never quoted: its bytes can be card data.
    @Test(arguments: [
        (["swipe", "--emulated", "--scenario", "swipe-after=1,bogus"], "unknown scenario step 'bogus'"),
        (["swipe", "--emulated", "--card", "no-such-card"], "no built-in card of that name"),
        (["swipe", "--emulated", "--card", "/tmp"], "cannot read the card file /tmp: it is a directory"),
        // An option given twice is not kept silently, the last one winning.
        (["swipe", "--emulated", "--emulated"], "--emulated is given twice"),
        (["swipe", "--emulated", "--card", "visa-test", "--card=mastercard-test"], "--card is given twice"),
        // A negative number is a number out of range, not a missing value.
        (["events", "--emulated", "--count", "-1"], "--count must be at least 1"),
        (["swipe", "--emulated", "--timeout", "-5"], "--timeout must be within 1…65535 seconds"),
        // Typos: the nearest command or option, in the first line, before anything the
        // parser concluded from the typo (an option unknown, a reader not named).
        (["swipe", "--emulatd"], "Error: swipe has no option --emulatd; did you mean --emulated?"),
        (["swip", "--emulated"], "Error: 'swip' is not a readerctl command; did you mean 'readerctl swipe'?"),
        (["swipr"], "Error: 'swipr' is not a readerctl command; did you mean 'readerctl swipe'?"),
        (["frobnicate", "--emulated"], "Error: 'frobnicate' is not a readerctl command (readerctl --help lists them)"),
        (["info", "--emulated", "--conect-timeout", "3"], "did you mean --connect-timeout?"),
        (["swipe", "--emulated", "--card", "Fixtures/cards/nope.json"], "cannot read the card file Fixtures/cards/nope.json: no such file"),
        (["apdu", "--emulated", "00A4040007A0000000031010", "5A0841111111"], "APDU 2 is not a command APDU"),
        (["apdu", "--emulated", "00A40400XY"], "APDU 1 is not hex bytes"),
    ])
    func badArgumentsAreUsageErrorsNamingTheProblem(arguments: [String], problem: String) async throws {
        let result = try await ReaderctlProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.standardError.contains(problem), "\(result.standardError)")
        #expect(!result.standardError.contains("Unknown option") && !result.standardError.contains("name the reader"))
        #expect(!result.standardError.contains("5A0841111111"))
        #expect(result.standardOutput.isEmpty)
    }

    @Test func jsonErrorsNameTheOutcome() async throws {
        let result = try await ReaderctlProcess.run(["swipe", "--emulated", "--scenario", "bad-swipe", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: String]
        #expect(object?["error"] == "bad-swipe")
    }

    @Test func emvReadsBothTestCards() async throws {
        let visa = try await ReaderctlProcess.run(["emv", "--emulated", "--scenario", "card-inserted", "--json"])
        #expect(visa.status == 0)
        let visaFields = try JSONSerialization.jsonObject(with: Data(visa.standardOutput.utf8)) as? [String: Any]
        #expect(visaFields?["pan"] as? String == "411111******1111")
        #expect(visaFields?["aid"] as? String == "A0000000031010")
        #expect(visaFields?["expiry"] as? String == "2512")

        let mastercard = try await ReaderctlProcess.run([
            "emv", "--emulated", "--card", "Fixtures/cards/mastercard-test.json", "--scenario", "card-inserted",
            "--mtu", "247", "--reveal", "--json",
        ])
        #expect(mastercard.status == 0)
        let fields = try JSONSerialization.jsonObject(with: Data(mastercard.standardOutput.utf8)) as? [String: Any]
        #expect(fields?["pan"] as? String == "5555555555554444")
        #expect(fields?["aid"] as? String == "A0000000041010")
        #expect(fields?["applicationLabel"] as? String == "MASTERCARD")
        #expect(fields?["records"] is Int, "a count is a JSON number")
    }

    /// Scripts read numbers as numbers: the battery level, a count, a firmware transfer's
    /// bytes and rate are JSON numbers, text is a string.
    @Test func jsonCarriesNumbersAsNumbers() async throws {
        let info = try await ReaderctlProcess.run(["info", "--emulated", "--json"])
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(info.standardOutput.utf8)) as? [String: Any])
        #expect(fields["batteryPercent"] as? Int == 85)   // EmulatedReader's default battery level
        #expect(fields["firmwareVersion"] as? String == "3.1.0")

        let update = try await ReaderctlProcess.run([
            "update-firmware", "Fixtures/firmware/vpos3356-3.2.0.vfw", "--emulated", "--json",
        ])
        #expect(update.status == 0)
        let lines = update.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let progress = try #require(lines.first { $0["phase"] as? String == "transferring" })
        #expect(progress["bytesSent"] is Int && progress["totalBytes"] is Int)
        let summary = try #require(lines.last)
        #expect(summary["outcome"] as? String == "updated")
        #expect(summary["bytesPerSecond"] is Int && summary["resentBlocks"] as? Int == 0 && summary["seconds"] is Double)
    }

    /// SELECT PPSE (the documentation's APDU): the card's FCI comes back via 61xx + GET RESPONSE.
    @Test func apduSendsCommandsAndPrintsStatusWords() async throws {
        let result = try await ReaderctlProcess.run([
            "apdu", "--emulated", "--scenario", "card-inserted", "00A404000E325041592E5359532E444446303100",
        ])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("response.sw:         9000"))
        #expect(result.standardOutput.contains("command.command:     SELECT by DF name"))
        // Tag names from EMV Book 3 Annex A; the AID's scheme from Visa's published AID list.
        for line in [
            "response.dataObjects:", "  6F File Control Information (FCI) Template",
            "     84 Dedicated File (DF) Name: 2PAY.SYS.DDF01",
            "              4F Application Identifier (AID) - card: A0000000031010 (Visa credit or debit)",
            "              50 Application Label: VISA CREDIT",
        ] {
            #expect(result.standardOutput.contains(line + "\n"), "\(line)")
        }

        let bad = try await ReaderctlProcess.run(["apdu", "--emulated", "00A4"])
        #expect(bad.status == 64)
    }

    @Test func eventsPrintAsTheyCome() async throws {
        let result = try await ReaderctlProcess.run(["events", "--emulated", "--scenario", "insert-after=1", "--count", "1", "--json"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains(#""event":"card-inserted""#))
    }

    /// Ctrl-C and SIGTERM are how a stream of events normally ends: exit 0, the events
    /// printed, and no error object for the script reading the JSON.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalEndsTheEventStreamWithoutAnError(signal: Int32) async throws {
        let run = try InteractiveReaderctl(
            ["events", "--emulated", "--scenario", "insert-after=1", "--json"],
            .signal(signal, whenStandardOutputShows: #""event":"card-inserted""#))
        #expect(await run.waitForExit(within: 10) == 0)
        #expect(run.signalled)
        #expect(run.standardOutput.contains(#""event":"card-inserted""#))
        #expect(!run.standardOutput.contains(#""error""#), "\(run.standardOutput)")
        #expect(!run.standardError.contains("cancelled"), "\(run.standardError)")
    }

    /// A person presses Ctrl-C while the reader waits for a swipe: the reader gets CANCEL,
    /// and readerctl exits 130 at once rather than after the 30 s swipe timeout.
    /// Chip commands wait for a card as a swipe waits for a swipe: the prompt when the slot
    /// is empty, and Ctrl-C cancels the wait (§5.1: CANCEL ends a waiting ICC POWER ON).
    @Test(arguments: [["power-on"], ["emv"], ["apdu", "00A404000E325041592E5359532E444446303100"]])
    func ctrlCCancelsTheWaitForACard(command: [String]) async throws {
        let run = try InteractiveReaderctl(
            command + ["--emulated", "--scenario", "no-insert", "--verbose"],
            .signal(SIGINT, whenStandardErrorShows: "→ ICC POWER ON"))
        #expect(await run.waitForExit(within: 10) == 130)
        #expect(run.signalled)
        #expect(run.standardError.contains("Insert a card"))
        #expect(run.standardError.contains("→ CANCEL"))
    }

    /// With the card already in the slot, nobody is asked to insert one.
    @Test func aCardInTheSlotIsPoweredWithoutAPrompt() async throws {
        let result = try await ReaderctlProcess.run(["power-on", "--emulated", "--scenario", "card-inserted"])
        #expect(result.status == 0)
        #expect(!result.standardError.contains("Insert a card"))
        #expect(result.standardOutput.contains("3B 68 00 00 00 73 C8 40 13 00 90 00"))
    }

    @Test func scenariosAreListed() async throws {
        let result = try await ReaderctlProcess.run(["scenarios"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("swipe-after=SECONDS"))
        #expect(result.standardOutput.contains("visa-test"))
    }
}
