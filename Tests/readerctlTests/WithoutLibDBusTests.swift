import Testing

/// readerctl on a machine where libdbus cannot be loaded: `CARDREADERKIT_LIBDBUS` points
/// the loader at a file that does not exist. Bluetooth commands exit 6 with the sentence
/// that names the library and its Debian package; everything else works.
@Suite struct WithoutLibDBusTests {
    static let missing = ["CARDREADERKIT_LIBDBUS": "libdbus-absent-for-this-test.so.3"]

    @Test(arguments: [
        ["scan", "--adapter", "hci1", "--duration", "1"],
        ["gatt", "--reader", "VPOS"],
        ["emulate", "--adapter", "hci0"],
        ["info", "--reader", "VPOS"],
        ["swipe", "--reader", "AA:BB:CC:DD:EE:FF", "--adapter", "hci1"],
        ["emv", "--reader", "VPOS", "--json"],
    ])
    func bluetoothCommandsExitSixNamingTheLibraryAndPackage(arguments: [String]) async throws {
        let result = try await ReaderctlProcess.run(arguments, environment: Self.missing, timeout: 30)
        #expect(result.status == 6, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains("Bluetooth needs the D-Bus library libdbus-absent-for-this-test.so.3"))
        #expect(result.standardError.contains("apt-get install libdbus-1-3"), "\(arguments): \(result.standardError)")
    }

    /// `doctor` fails its first check, with the same fix, and skips every other.
    @Test func doctorFailsItsLibdbusCheck() async throws {
        let result = try await ReaderctlProcess.run(["doctor"], environment: Self.missing)
        #expect(result.status == 10)
        #expect(result.standardOutput.hasPrefix("FAIL     libdbus "))
        #expect(result.standardOutput.contains("\n         fix: install libdbus: `sudo apt-get install libdbus-1-3`"))
        #expect(result.standardOutput.contains("\nskipped  system bus                  needs libdbus\n"))
    }

    @Test(arguments: [
        ["swipe", "--emulated"],
        ["emv", "--emulated", "--scenario", "card-inserted"],
        ["decode", "Fixtures/packets/swipe-mtu23.txt"],
        ["scenarios"],
    ])
    func everythingElseWorks(arguments: [String]) async throws {
        let result = try await ReaderctlProcess.run(arguments, environment: Self.missing)
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        #expect(!result.standardOutput.isEmpty)
        #expect(!result.standardError.contains("libdbus"))
    }
}
