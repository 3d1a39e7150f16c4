import CardReaderKit
import CardReaderKitTesting
import Glibc
import Logging
import SoakSupport

// The soak: one reader over the emulated link, 100,000 APDU exchanges then 10,000 swipes,
// with line faults sprinkled in (noise, a false STX, a corrupted answer that times out)
// and the link closed and reopened every 10,000 operations. It prints heap, RSS, open
// file descriptors, threads and timers asleep at the start, every 10 % and at the end,
// and the growth against the budget of 1 MB. Time is the continuous clock: every deadline
// the reader arms is a real timer.
//
// Usage: SoakBenchmark [APDUS [SWIPES [MTU]]]

let arguments = CommandLine.arguments.dropFirst().map { Int($0) }
guard arguments.allSatisfy({ $0 != nil }), arguments.count <= 3 else {
    print("usage: SoakBenchmark [APDUS [SWIPES [MTU]]]")
    exit(64)
}
let apdus = arguments.first.flatMap { $0 } ?? 100_000
let swipes = arguments.dropFirst().first.flatMap { $0 } ?? 10_000
let mtu = arguments.dropFirst(2).first.flatMap { $0 } ?? 23
let budget = 1 << 20

let clock = CountingClock()
// The faults make the reader log a warning each; the soak measures, it does not log.
let silent = Logger(label: "soak") { _ in SwiftLogNoOpLogHandler() }
var scenario = EmulatorScenario()
scenario.cardInsertedAtStart = true
let emulated = EmulatedReader(card: .visaTest, scenario: scenario, clock: clock, logger: silent)
let plan = FaultPlan()
let reader = CardReader(
    connector: FaultInjectingConnector(base: EmulatedReaderConnector(reader: emulated, mtu: mtu), plan: plan),
    configuration: CardReader.Configuration(linkMargin: .milliseconds(200)), clock: clock, logger: silent)
let selectPPSE = try CommandAPDU.select(name: Array("2PAY.SYS.DDF01".utf8))

var report = SoakReport(total: apdus + swipes, budget: budget, clock: clock)
var faults = FaultCounts()

func connect() async throws {
    try await reader.connect()
    _ = try await reader.powerOnCard()
}

/// Every 10,000th operation closes and reopens the link; others may carry a fault.
@MainActor func prepare(_ operation: Int) async throws {
    if operation % 10_000 == 0 {
        await reader.disconnect()
        try await connect()
        faults.reconnections += 1
    }
    if operation % 10_000 == 5_000 {
        plan.arm(.corruption)
        var answered = false
        do throws(CardReaderError) {
            _ = try await reader.info()
            answered = true
        } catch where error.code == .readerTimedOut {
            faults.corruptedAnswers += 1
        } catch {
            throw SoakFailure("GET INFO with a corrupted answer failed otherwise: \(error)")
        }
        if answered { throw SoakFailure("GET INFO answered despite a corrupted answer") }
    }
    if operation % 5_000 == 2_500 {
        plan.arm(.falseStart)
        faults.falseStarts += 1
    } else if operation % 100 == 50 {
        plan.arm(.noise)
        faults.noise += 1
    }
}

try await connect()
report.checkpoint(done: 0)
let start = ContinuousClock.now
for operation in 1...max(apdus, 1) where apdus > 0 {
    try await prepare(operation)
    let response = try await reader.transmit(selectPPSE)
    guard response.statusWord == .success else { throw SoakFailure("SELECT PPSE answered \(response.statusWord)") }
    report.checkpoint(done: operation)
}
let apduTime = ContinuousClock.now - start
for swipe in 1...max(swipes, 1) where swipes > 0 {
    try await prepare(swipe)
    _ = try await reader.readMagneticStripe(timeout: .seconds(5))
    report.checkpoint(done: apdus + swipe)
}
let swipeTime = ContinuousClock.now - start - apduTime
await reader.disconnect()
report.finish()

print(
    """

    \(apdus) APDUs at MTU \(mtu) in \(apduTime.formatted), \(swipes) swipes in \(swipeTime.formatted); \
    faults: \(faults.noise) noise, \(faults.falseStarts) false STX, \(faults.corruptedAnswers) corrupted answers \
    (each timed out as it should), \(faults.reconnections) reconnections
    """)
report.printGrowth()
exit(report.withinBudget ? 0 : 1)
