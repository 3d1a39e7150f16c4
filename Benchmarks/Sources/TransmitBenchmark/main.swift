import CardReaderKit
import CardReaderKitTesting
import Glibc

// One APDU's round trip in process: a backend that links the SDK, the emulated reader
// answering at once, the card powered, SELECT 2PAY.SYS.DDF01 sent as it is (no GET
// RESPONSE followed). Prints the median and the 90th percentile over COUNT exchanges, in
// microseconds, after a warm-up: what `Benchmarks/cardreaderd-transmit` sets the daemon's
// round trip beside.
//
// Usage: TransmitBenchmark [COUNT]

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 2000
let reader = CardReader(
    connector: EmulatedReaderConnector(reader: EmulatedReader(card: .visaTest, scenario: try EmulatorScenario(parsing: ["card-inserted"]))))
let select = try CommandAPDU(parsing: [0x00, 0xA4, 0x04, 0x00, 0x0E] + Array("2PAY.SYS.DDF01".utf8) + [0x00])
do {
    try await reader.connect()
    _ = try await reader.powerOnCard(waitingForInsertion: .zero)
    for _ in 0..<100 { _ = try await reader.transmit(select, options: .raw) }
    var samples: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<count {
        let started = clock.now
        _ = try await reader.transmit(select, options: .raw)
        let elapsed = started.duration(to: clock.now)
        samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
    }
    samples.sort()
    print("in-process \(count) median_us=\(samples[count / 2]) p90_us=\(samples[count * 9 / 10])")
    try await reader.powerOffCard()
    await reader.disconnect()
} catch {
    print("failed: \(error)")
    exit(1)
}
