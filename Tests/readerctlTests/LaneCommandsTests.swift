import Foundation
import Testing

/// `readerctl events` and `readerctl status` hold the emulated reader as a lane does: the
/// reader's own idle rule and scheduled reset drop the link, and each drop is a line with
/// the reason the SDK worked out, followed by the reconnection; the command ends at
/// --duration with exit 0. The emulated link reports every drop as `remote-disconnected`,
/// as BlueZ does. Timings are the scenarios' (an idle rule of 1, 2 or 3 s, a reset at 3 s,
/// 8 s of silence after it).
@Suite struct LaneCommandsTests {
    static func lines(_ output: String) -> [String] { output.split(separator: "\n").map(String.init) }

    @Test func eventsReportsEachDropWithItsReasonAndKeepsTheReader() async throws {
        let result = try await ReaderctlProcess.run([
            "events", "--emulated", "--scenario", "idle-timeout=2", "--scenario", "reset-after=3", "--keep-alive", "0",
            "--reader-idle-timeout", "2", "--duration", "6", "--json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = Self.lines(result.standardOutput)
        #expect(lines.contains { $0.contains(#""event":"link-dropped""#) && $0.contains(#""reason":"idle""#) })
        #expect(lines.contains { $0.contains(#""event":"link-dropped""#) && $0.contains(#""reason":"daily-reset""#) })
        #expect(lines.contains { $0.contains(#""event":"reconnected""#) })
        #expect(lines.contains { $0.contains(#""event":"battery""#) && $0.contains(#""batteryPercent":85"#) })
        #expect(!lines.contains { $0.contains(#""error""#) })
    }

    /// A keep-alive shorter than the reader's idle rule: no drop at all.
    @Test func theKeepAliveHoldsTheLink() async throws {
        let result = try await ReaderctlProcess.run([
            "events", "--emulated", "--scenario", "idle-timeout=3", "--keep-alive", "1", "--reader-idle-timeout", "3",
            "--duration", "5", "--json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardOutput.contains("link-dropped"), "\(result.standardOutput)")
    }

    @Test func statusShowsTheLinkBatteryAndFirmware() async throws {
        let result = try await ReaderctlProcess.run(["status", "--emulated", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.standardOutput
        #expect(output.contains(#""link":"ready""#))
        #expect(output.contains(#""firmware":"3.1.0""#))
        #expect(output.contains(#""batteryPercent":85"#))
        #expect(output.contains(#""batterySource":"get-info""#))
    }

    @Test func statusWatchFollowsADropAndTheReconnection() async throws {
        let result = try await ReaderctlProcess.run([
            "status", "--emulated", "--watch", "--duration", "3", "--scenario", "idle-timeout=1", "--keep-alive", "0",
            "--reader-idle-timeout", "1", "--json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = Self.lines(result.standardOutput)
        let reconnecting = lines.firstIndex { $0.contains(#""link":"reconnecting""#) && $0.contains(#""reason":"idle""#) }
        #expect(reconnecting != nil, "\(lines)")
        if let reconnecting {
            #expect(lines[reconnecting...].contains { $0.contains(#""link":"ready""#) && $0.contains(#""lastDisconnect":"idle""#) })
        }
    }

    /// Allowed (a test of drops wants it), and said plainly before the run.
    @Test func aKeepAliveNoShorterThanTheIdleRuleIsWarnedOf() async throws {
        let result = try await ReaderctlProcess.run([
            "events", "--emulated", "--keep-alive", "300", "--reader-idle-timeout", "300", "--duration", "1",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("is not shorter than the reader's idle rule"))
    }

    @Test func statusWithoutWatchRefusesADuration() async throws {
        let result = try await ReaderctlProcess.run(["status", "--emulated", "--duration", "3"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("--duration applies to --watch only"))
    }
}
