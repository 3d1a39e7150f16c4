import CardReaderKit
import CardReaderKitTesting
import ReaderProtocol
import Testing

/// Updates a lane schedules, on one ManualClock and a wall clock that starts at 08:00 UTC:
/// a required one at connection, before the first card operation; an optional one in its
/// window once the lane is idle; one the battery refuses, tried again as it charges. The
/// emulated reader runs 3.1.0 and restarts 0.5 s after accepting an image, for 3 s (its
/// configuration); the image is 3.2.0 for the same model (§7.3).
@Suite(.timeLimit(.minutes(1)))
struct ScheduledFirmwareUpdateTests {
    static let image: FirmwareImage = {
        (try? FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS3356", version: "3.2.0", payload: Array(0..<200))))!
    }()

    /// A reader that keeps an idle link all day, so that only the checks pass the time.
    static let patient = EmulatedReaderConfiguration(idleTimeout: .seconds(86_400))

    @Test func aRequiredUpdateRunsAtConnectionBeforeTheFirstCardOperation() async throws {
        let bench = try await LaneBench(connect: false)
        await bench.reader.schedule(ScheduledFirmwareUpdate(image: Self.image, urgency: .required))
        #expect(await bench.reader.status.pendingUpdate == .init(version: "3.2.0", isRequired: true))
        try await bench.reader.connect()
        let refused = await #expect(throws: CardReaderError.self) { try await bench.reader.readMagneticStripe() }
        #expect(refused?.code == .updating)
        let done = try await bench.stepping(within: .seconds(5)) {
            try await bench.waitForStatus { $0.lastUpdate != nil && $0.link == .ready }
        }
        guard case .installed(let report) = done.lastUpdate else {
            Issue.record("expected the update installed, got \(String(describing: done.lastUpdate))")
            return
        }
        #expect(report.version == "3.2.0")
        #expect(report.previousVersion == "3.1.0")
        #expect(done.pendingUpdate == nil)
        #expect(try await bench.reader.readMagneticStripe().track2.track != nil)
        #expect(await bench.emulator.firmwareVersion == "3.2.0")
    }

    /// 12:00–13:00 after 10 idle minutes: at 11:59 nothing has happened; the check at
    /// 12:00 starts it.
    @Test func anOptionalUpdateWaitsForItsWindow() async throws {
        let bench = try await LaneBench(readerConfiguration: Self.patient, configuration: LaneBench.lane(keepAlive: nil))
        let window = MaintenanceWindow(opens: .seconds(12 * 3600), closes: .seconds(13 * 3600))
        await bench.reader.schedule(ScheduledFirmwareUpdate(image: Self.image, urgency: .optional(window)))
        try await bench.pass(to: .seconds(4 * 3600 - 60))
        #expect(await bench.emulator.firmwareVersion == "3.1.0")
        #expect(await bench.reader.status.pendingUpdate?.isRequired == false)
        try await bench.pass(to: .seconds(4 * 3600))
        let done = try await bench.stepping(within: Self.restart) {
            try await bench.waitForStatus { $0.lastUpdate != nil && $0.link == .ready }
        }
        #expect(done.lastUpdate.map { "\($0)" } == "installed 3.2.0")
        #expect(done.lastUpdateEnded.map { $0.localTimeOfDay >= .seconds(12 * 3600) } == true)
        #expect(await bench.emulator.firmwareVersion == "3.2.0")
    }

    /// The reader's restart after an image, and a margin: the firmware steps' horizon.
    static let restart = Duration.seconds(4)

    /// The battery at 25 %, charging 1 % every 75 s: each minute's check refuses the update
    /// for it (nothing sent: GET INFO only), leaving it scheduled, until the check that
    /// finds 30 % (at 420 s: steps at 75, 150, 225, 300, 375 s) installs it.
    @Test func anUpdateTheBatteryRefusesRunsOnceCharged() async throws {
        let bench = try await LaneBench(
            scenario: ["battery=25", "battery-charge=48"], readerConfiguration: Self.patient,
            configuration: LaneBench.lane(keepAlive: nil))
        let allDay = MaintenanceWindow(opens: .zero, closes: .seconds(86_400), idleFor: .zero)
        await bench.reader.schedule(ScheduledFirmwareUpdate(image: Self.image, urgency: .optional(allDay)))
        var refusals: [UInt8] = []
        for minute in 1...7 {
            try await bench.pass(to: .seconds(60 * minute))
            let moment = bench.wallClock.now()
            let status = try await bench.stepping(within: Self.restart) {
                try await bench.waitForStatus { ($0.lastUpdateEnded ?? moment.advanced(by: .seconds(-1))) >= moment }
            }
            switch status.lastUpdate {
            case .failed(let error)?:
                #expect(error.firmwareUpdate?.code == .batteryTooLow, "minute \(minute): \(error)")
                #expect(status.pendingUpdate != nil)
                refusals.append(error.firmwareUpdate?.batteryPercent ?? 0)
            case .installed?:
                #expect(status.pendingUpdate == nil)
                #expect(minute == 7)
            case nil:
                Issue.record("no outcome at minute \(minute)")
            }
        }
        #expect(refusals == [25, 26, 27, 28, 29, 29])
        #expect(await bench.emulator.firmwareVersion == "3.2.0")
    }

    /// An image the reader cannot take is not tried again.
    @Test func anImageForAnotherModelIsDropped() async throws {
        let bench = try await LaneBench()
        let other = try FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS9999", version: "3.2.0", payload: [1]))
        await bench.reader.schedule(ScheduledFirmwareUpdate(image: other, urgency: .required))
        let failed = try await bench.waitForStatus { $0.lastUpdate != nil }
        #expect(failed.pendingUpdate == nil)
        guard case .failed(let error) = failed.lastUpdate else { return }
        #expect(error.firmwareUpdate?.code == .invalidImage)
        #expect(failed.link == .ready)
    }

    @Test func aWindowMayCrossMidnight() {
        let window = MaintenanceWindow(opens: .seconds(23 * 3600), closes: .seconds(2 * 3600))
        let midnight = WallClockTime(secondsSince1970: 1_795_824_000)  // 2026-11-28 00:00 UTC
        #expect(window.contains(midnight.advanced(by: .seconds(23 * 3600 + 1))))
        #expect(window.contains(midnight.advanced(by: .seconds(3600))))
        #expect(!window.contains(midnight.advanced(by: .seconds(12 * 3600))))
        // Local time: at UTC+1, 22:30 UTC is 23:30 local.
        #expect(window.contains(WallClockTime(secondsSince1970: 1_795_824_000 + 22.5 * 3600, utcOffsetSeconds: 3600)))
    }
}
