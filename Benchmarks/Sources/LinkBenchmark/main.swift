import BLETransport
import CardReaderKit

#if canImport(Glibc)
import Glibc
#endif

// A reader link over a real bluetoothd, over each value transport, measured in the same run:
// - write → notify latency: GET INFO written, its answer reassembled from the
//   notifications (median and 90th percentile of 200);
// - host → reader throughput: 400 packets of the link's largest write (line noise the
//   reader skips), then a GET INFO whose answer proves every packet arrived.
// The socket path's figures are printed beside the message path's, as a ratio.
//
// Run inside the bluez-vm guest with an emulated reader served on another controller:
//   readerctl emulate --adapter hci0 & LinkBenchmark --adapter hci1 --reader VPOS3356

var adapter = "hci1"
var reader = "VPOS3356"
var maximumMTU = 247
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--adapter": adapter = arguments.popFirst() ?? adapter
    case "--reader": reader = arguments.popFirst() ?? reader
    case "--mtu": maximumMTU = arguments.popFirst().flatMap { Int($0) } ?? maximumMTU
    default:
        print("usage: LinkBenchmark [--adapter hciN] [--reader NAME] [--mtu 23…247]")
        exit(64)
    }
}

struct Figures {
    var transport: BlueZReaderLink.Transport
    var writeLength: Int
    var medianLatency: Duration
    var p90Latency: Duration
    var bytesPerSecond: Double
}

struct LinkFailure: Error, CustomStringConvertible {
    var description: String
}

/// Writes GET INFO and returns when its answer has been reassembled.
func exchange(_ link: BlueZReaderLink, _ inbound: inout AsyncStream<LinkInbound>.Iterator, decoder: inout FrameDecoder)
    async throws -> Duration
{
    let frame = try ReaderCommand.getInfo.frame.encoded()
    let started = ContinuousClock.now
    try await link.write(frame)
    while true {
        guard case .notification(let bytes) = await inbound.next() else { throw LinkFailure(description: "the link dropped") }
        var answered = false
        decoder.decode(bytes) { event in
            if case .frame = event { answered = true }
        }
        if answered { return ContinuousClock.now - started }
    }
}

func measure(_ transport: GattValueTransport, reader: String, adapter: String, maximumMTU: Int) async throws -> Figures {
    let connector = BlueZReaderConnector(
        reader: reader, adapter: adapter, timeout: .seconds(30), valueTransport: transport, maximumMTU: maximumMTU)
    guard let link = try await connector.connect() as? BlueZReaderLink else { throw LinkFailure(description: "not a BlueZ link") }
    var inbound = link.inbound.makeAsyncIterator()
    var decoder = FrameDecoder()
    for _ in 0..<20 { _ = try await exchange(link, &inbound, decoder: &decoder) }
    var latencies: [Duration] = []
    for _ in 0..<200 { latencies.append(try await exchange(link, &inbound, decoder: &decoder)) }
    latencies.sort()

    let length = await link.maximumWriteLength
    let packet = [UInt8](repeating: 0, count: length)
    let packets = 400
    let started = ContinuousClock.now
    for _ in 0..<packets { try await link.write(packet) }
    _ = try await exchange(link, &inbound, decoder: &decoder)
    let elapsed = ContinuousClock.now - started
    await link.close()
    return Figures(
        transport: link.transport, writeLength: length, medianLatency: latencies[latencies.count / 2],
        p90Latency: latencies[latencies.count * 9 / 10], bytesPerSecond: Double(packets * length) / seconds(elapsed))
}

func seconds(_ duration: Duration) -> Double {
    let (whole, fraction) = duration.components
    return Double(whole) + Double(fraction) / 1e18
}

func milliseconds(_ duration: Duration) -> String {
    let value = seconds(duration) * 1000
    return String(Double(Int(value * 100)) / 100)
}

let sockets = try await measure(.acquiredSocket, reader: reader, adapter: adapter, maximumMTU: maximumMTU)
let messages = try await measure(.dbusMessages, reader: reader, adapter: adapter, maximumMTU: maximumMTU)
print("transport | write size | write→notify latency, median (p90) | host→reader throughput")
print("--- | --- | --- | ---")
for figures in [sockets, messages] {
    print(
        "\(figures.transport) | \(figures.writeLength) B | \(milliseconds(figures.medianLatency)) ms (\(milliseconds(figures.p90Latency)) ms)"
            + " | \(Int(figures.bytesPerSecond / 1024)) KiB/s")
}
let latencyRatio = seconds(messages.medianLatency) / seconds(sockets.medianLatency)
let throughputRatio = sockets.bytesPerSecond / messages.bytesPerSecond
print("sockets ÷ messages: latency \(Double(Int(latencyRatio * 100)) / 100)× shorter, throughput \(Double(Int(throughputRatio * 100)) / 100)× higher")
