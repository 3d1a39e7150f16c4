import CardReaderKit
import CardReaderKitTesting
import ReaderProtocol
import TestEnvironment
import Testing

/// A shop day, 08:00 to 20:00, in well under a second: one emulated lane on one
/// ManualClock, the way a point-of-sale backend holds it (`CardReader.Configuration.lane`).
///
/// - 300 transactions, alternately a swipe and a chip session (power on, SELECT PPSE, power
///   off), at times drawn (a fixed seed) over the morning and the afternoon, with the lunch
///   hour empty: idle gaps of many minutes come by themselves.
/// - The reader's own life, as the emulated reader lives it: its idle rule (5 minutes), a
///   scheduled reset at 14:30 announced 2 minutes ahead and 8 s of silence after, a battery
///   falling from 90 % by 1 % every 10 minutes (18 % at 20:00), with the Battery service's
///   level and `E0 03` below 20 %.
/// - Firmware: 3.2.0 required, installed at the morning's connection; 3.3.0 optional, in a
///   12:10–13:00 window after 10 idle minutes; 3.4.0 optional, 19:00–20:00, refused for the
///   battery (24 % at 19:00, below the 30 % an update needs), tried each minute of the
///   window, and left scheduled.
///
/// Every transaction succeeds or fails with a reason a cashier can act on (the reader
/// resetting, an update running); none because of an idle drop or a reconnection; no link
/// drop but the reset and the updates' restarts.
@Suite(.timeLimit(.minutes(1)))
struct ShopDayTests {
    /// What a transaction may end with, besides success: the cashier waits and tries again.
    static let actionable: Set<CardReaderError.Code> = [.resetting, .updating]

    static func image(_ version: String) -> FirmwareImage {
        (try? FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS3356", version: version, payload: Array(0..<200))))!
    }

    static func time(_ hour: Int, _ minute: Int, _ second: Int = 0) -> Duration {
        .seconds((hour - 8) * 3600 + minute * 60 + second)
    }

    /// The transactions' times: 300 drawn uniformly over 08:05–12:00 and 13:00–18:50, and two
    /// inside the reset's warning (14:29:40, 14:29:58).
    static func transactionTimes() -> [Duration] {
        var random = SeededGenerator(seed: 20_261_128)
        let morning = time(8, 5)..<time(12, 0)
        let afternoon = time(13, 0)..<time(18, 50)
        let morningShare = Double((morning.upperBound - morning.lowerBound) / .seconds(1))
        let total = morningShare + Double((afternoon.upperBound - afternoon.lowerBound) / .seconds(1))
        var times: [Duration] = [time(14, 29, 40), time(14, 29, 58)]
        while times.count < 302 {
            let offset = Double(random.next() % 1_000_000) / 1_000_000 * total
            let at = offset < morningShare ? morning.lowerBound + .seconds(offset) : afternoon.lowerBound + .seconds(offset - morningShare)
            times.append(.milliseconds(Int64((Double(at / .milliseconds(1))).rounded())))
        }
        return times.sorted()
    }

    enum Kind { case swipe, chip }

    /// When a transaction's first command could meet the reset at 14:30 (a swipe's 31 s
    /// deadline, ICC POWER ON's 32 s, less the 2 s by which a drop counts as the reset), up
    /// to the reader's return after its 8 s of silence.
    static let waitsForTheReset = time(14, 29, 26)..<time(14, 30, 8)

    /// SELECT of the contact payment directory, `2PAY.SYS.DDF01` (EMV Book 1 §12.2.2).
    static let selectPPSE: CommandAPDU = (try? CommandAPDU.select(name: Array("2PAY.SYS.DDF01".utf8)))!

    static func transact(_ kind: Kind, on reader: CardReader) async -> CardReaderError? {
        do throws(CardReaderError) {
            switch kind {
            case .swipe:
                _ = try await reader.readMagneticStripe(timeout: .seconds(30))
            case .chip:
                _ = try await reader.powerOnCard(waitingForInsertion: .seconds(30))
                _ = try await reader.transmit(Self.selectPPSE)
                try await reader.powerOffCard()
            }
            return nil
        } catch {
            return error
        }
    }

    @Test func aLaneLastsTheDay() async throws {
        // At MTU 247, as BlueZ negotiates with these readers: each frame is one notification.
        let bench = try await LaneBench(scenario: ["battery=90", "battery-drain=6", "reset-after=23400"], mtu: 247, connect: false)
        let reader = bench.reader
        let statuses = await reader.statusUpdates()
        let clock = bench.clock
        let drops = Task { () -> [String] in
            var seen: [String] = []
            var last: DisconnectReason?
            for await status in statuses where status.lastDisconnect != last {
                last = status.lastDisconnect
                if let code = last?.code { seen.append("\(code)@\(clock.now.offset)") }
                if last?.code == .host { break }
            }
            return seen
        }

        // 08:00: the required update, at the connection.
        await reader.schedule(ScheduledFirmwareUpdate(image: Self.image("3.2.0"), urgency: .required))
        try await reader.connect()
        try await bench.pass(to: Self.time(8, 1))
        #expect(await bench.emulator.firmwareVersion == "3.2.0")
        await reader.schedule(
            ScheduledFirmwareUpdate(
                image: Self.image("3.3.0"),
                urgency: .optional(MaintenanceWindow(opens: .seconds(12 * 3600 + 600), closes: .seconds(13 * 3600)))))

        var failures: [String] = []
        var actionable: [String] = []
        var eveningScheduled = false
        for (index, at) in Self.transactionTimes().enumerated() {
            if at >= Self.time(13, 0), !eveningScheduled {
                try await bench.pass(to: Self.time(13, 0))
                #expect(await bench.emulator.firmwareVersion == "3.3.0", "the optional update ran in its window")
                await reader.schedule(
                    ScheduledFirmwareUpdate(
                        image: Self.image("3.4.0"),
                        urgency: .optional(MaintenanceWindow(opens: .seconds(19 * 3600), closes: .seconds(20 * 3600)))))
                eveningScheduled = true
            }
            try await bench.pass(to: at)
            // The reader answers at once, so no time passes during a transaction, except one
            // asked for so close to the reset that it could meet it: that one waits for the
            // reset and the reader's return (14:30:08), while time goes on to then.
            let kind: Kind = index % 2 == 0 ? .swipe : .chip
            let error: CardReaderError?
            if Self.waitsForTheReset.contains(at) {
                let transaction = Task { await Self.transact(kind, on: reader) }
                // Half a second at a time, until the reader is back after the reset.
                while bench.now <= Self.time(14, 30) { try await bench.pass(to: bench.now + .milliseconds(500)) }
                while await reader.status.link != .ready { try await bench.pass(to: bench.now + .milliseconds(500)) }
                error = await transaction.value
            } else {
                error = await Self.transact(kind, on: reader)
            }
            guard let error else { continue }
            if Self.actionable.contains(error.code) {
                actionable.append("\(at): \(error.code): \(error)")
            } else {
                failures.append("\(at): \(error.code): \(error)")
            }
        }
        try await bench.pass(to: Self.time(20, 0))
        // 20:00's Battery Level notification (18 %) comes on the Battery service's own stream.
        _ = try await bench.waitForStatus { $0.battery?.percent == 18 }
        await reader.disconnect()

        #expect(failures.isEmpty, "\(failures)")
        #expect(actionable.count <= 2, "\(actionable): only the two transactions inside the reset's warning may have to wait")
        let status = await reader.status
        #expect(status.pendingUpdate == .init(version: "3.4.0", isRequired: false))
        guard case .failed(let refusal) = status.lastUpdate else {
            Issue.record("expected the evening update refused, got \(String(describing: status.lastUpdate))")
            return
        }
        // Tried each minute of the window, refused each time: at 24 % at 19:00, 19 % by 19:59.
        #expect(refusal.firmwareUpdate?.code == .batteryTooLow)
        #expect((18...24).contains(refusal.firmwareUpdate?.batteryPercent ?? 0))
        #expect(status.lastUpdateEnded.map { $0.localTimeOfDay >= .seconds(19 * 3600) } == true)
        #expect(status.battery?.percent == 18)
        #expect(status.battery?.isLow == true)
        #expect(await bench.emulator.firmwareVersion == "3.3.0")
        let dropLog = await drops.value
        let reasons = Set(dropLog.map { DisconnectReason.Code(rawValue: String($0.prefix { $0 != "@" })) })
        #expect(reasons.isSubset(of: [.firmwareRestart, .dailyReset, .host]), "\(dropLog)")
        #expect(reasons.contains(.dailyReset))
        #expect(reasons.contains(.firmwareRestart))
    }
}
