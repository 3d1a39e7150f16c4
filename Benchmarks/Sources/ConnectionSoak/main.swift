import CardReaderKit
import Glibc
import Logging
import SoakSupport

// The connection soak: connects to a reader over BlueZ, asks GET INFO and disconnects,
// CYCLES times (1,000 by default). It prints heap, RSS, open file descriptors, threads and
// timers asleep after a first warm-up cycle, every 10 % and at the end, and the growth
// against the budget of 1 MB; exit 1 over budget, when a thread or descriptor is left
// behind, or when a cycle fails. Each connection opens its own D-Bus connection (and
// dispatch thread) to bluetoothd, as `BlueZReaderConnector` does, so a leaked thread,
// descriptor or task holding memory shows here.
// Scripts/bluez-connection-soak runs it in the bluez-vm guest beside `readerctl emulate`.
//
// Usage: ConnectionSoak [--cycles N] [--reader NAME|ADDRESS] [--adapter hciN]

var cycles = 1_000
var readerName = "VPOS3356"
var adapterName: String? = nil
var arguments = CommandLine.arguments.dropFirst()[...]
while let argument = arguments.popFirst() {
    switch (argument, arguments.popFirst()) {
    case ("--cycles", let value?) where Int(value).map({ $0 > 0 }) == true: cycles = Int(value) ?? cycles
    case ("--reader", let value?): readerName = value
    case ("--adapter", let value?): adapterName = value
    default:
        print("usage: ConnectionSoak [--cycles N] [--reader NAME|ADDRESS] [--adapter hciN]")
        exit(64)
    }
}

let clock = CountingClock()
let quiet = Logger(label: "connection-soak") { _ in SwiftLogNoOpLogHandler() }
let reader = CardReader(
    connector: BlueZReaderConnector(reader: readerName, adapter: adapterName, logger: quiet), clock: clock,
    logger: quiet)

/// One cycle; the time it took to connect.
func cycle() async throws -> Duration {
    let started = ContinuousClock.now
    try await reader.connect(timeout: .seconds(30))
    let connected = ContinuousClock.now - started
    let info = try await reader.info()
    guard info.model != nil else { throw SoakFailure("GET INFO named no model") }
    await reader.disconnect()
    return connected
}

do {
    _ = try await cycle()
} catch {
    print("the warm-up connection to \(readerName) failed: \(error)")
    exit(1)
}
var report = SoakReport(total: cycles, budget: 1 << 20, clock: clock)
report.checkpoint(done: 0)
var failures: [Int: String] = [:]
var connectTimes: [Duration] = []
let start = ContinuousClock.now
for number in 1...cycles {
    do {
        connectTimes.append(try await cycle())
    } catch {
        failures[number] = "\(error)"
        await reader.disconnect()
    }
    report.checkpoint(done: number)
}
let elapsed = ContinuousClock.now - start
report.finish()

connectTimes.sort()
let median = connectTimes.isEmpty ? Duration.zero : connectTimes[connectTimes.count / 2]
let slowest = connectTimes.last ?? .zero
print(
    """

    \(cycles) connect / GET INFO / disconnect cycles in \(elapsed.formatted); connect median \(median.formatted), \
    slowest \(slowest.formatted); \(failures.count) failed
    """)
for (number, error) in failures.sorted(by: { $0.key < $1.key }).prefix(20) {
    print("cycle \(number) failed: \(error)")
}
report.printGrowth()
exit(report.withinBudget && failures.isEmpty ? 0 : 1)
