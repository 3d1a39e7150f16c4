import BLETransport
import CardReaderKit

#if canImport(Glibc)
import Glibc
#endif

// A reader link over a real bluetoothd, measured in the same run:
// - write → notify latency: GET INFO written, its answer reassembled from the
//   notifications (median and 90th percentile of 200), with notifications over the
//   AcquireNotify socket and over D-Bus messages;
// - host → reader throughput of the SDK's writes: 400 packets of the link's largest write
//   (line noise the reader skips), each a Write Request acknowledged before the next, then
//   a GET INFO whose answer proves every packet arrived;
// - the same 400 packets as Write Commands over the AcquireWrite socket: what the link
//   takes when nothing waits for the reader (no order between ATT bearers), the cost of
//   order as a ratio.
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
    /// How the link's values travel, as it describes itself: `notify acquired-socket, write request`.
    var transport: String
    var writeLength: Int
    var medianLatency: Duration
    var p90Latency: Duration
    var bytesPerSecond: Double
    var commandsPerSecond: Double?
}

struct LinkFailure: Error, CustomStringConvertible {
    var description: String
}

/// Writes GET INFO (through the link, or with `write`) and returns when its answer has been
/// reassembled.
func exchange<Link: ReaderLink>(
    _ link: Link, _ inbound: inout Link.Inbound.AsyncIterator, decoder: inout FrameDecoder,
    write: (([UInt8]) async throws -> Void)? = nil
) async throws -> Duration {
    let frame = try ReaderCommand.getInfo.frame.encoded()
    let started = ContinuousClock.now
    if let write { try await write(frame) } else { try await link.write(frame) }
    while true {
        guard case .notification(let bytes) = await inbound.next(isolation: nil) else { throw LinkFailure(description: "the link dropped") }
        var answered = false
        decoder.decode(bytes) { event in
            if case .frame = event { answered = true }
        }
        if answered { return ContinuousClock.now - started }
    }
}

/// The SDK's link to the reader, as a backend opens it.
func open(_ transport: BlueZValueTransport) async throws -> any ReaderLink {
    try await BlueZReaderConnector(
        reader: reader, adapter: adapter, timeout: .seconds(30), valueTransport: transport, maximumMTU: maximumMTU
    ).connect()
}

/// A writer of Write Commands to the reader's RX over an AcquireWrite socket, on a D-Bus
/// connection of its own to the device the link already connected. Closing its connection
/// releases the socket: bluetoothd refuses `WriteValue` ("Write acquired") while it is held.
func commandWriter() async throws -> (BluetoothSession, GattConnection, GattWriter) {
    let session = try await BluetoothSession.open()
    let bluetooth = try await session.adapter(named: adapter)
    let found = try await bluetooth.find(DiscoveryFilter(nameOrAddress: reader), timeout: .seconds(30))
    let connection = try await bluetooth.device(at: found.path).connect(timeout: .seconds(30), attempts: 3)
    let receive = try await connection.characteristic(
        BluetoothUUID(stringLiteral: ReaderGATTProfile.receiveCharacteristic),
        inService: BluetoothUUID(stringLiteral: ReaderGATTProfile.dataService))
    return (session, connection, try await connection.writer(for: receive, type: .command))
}

/// Writes `packets` packets, then GET INFO, with `write`; bytes per second. GET INFO goes the
/// same way as the packets: bluetoothd refuses `WriteValue` ("Write acquired") while an
/// `AcquireWrite` socket is open on the characteristic.
func throughput<Link: ReaderLink>(
    _ link: Link, _ inbound: inout Link.Inbound.AsyncIterator, decoder: inout FrameDecoder,
    length: Int, write: @escaping ([UInt8]) async throws -> Void
) async throws -> Double {
    let packet = [UInt8](repeating: 0, count: length)
    let packets = 400
    let started = ContinuousClock.now
    for _ in 0..<packets { try await write(packet) }
    _ = try await exchange(link, &inbound, decoder: &decoder, write: write)
    return Double(packets * length) / seconds(ContinuousClock.now - started)
}

func measure(_ transport: BlueZValueTransport, commands: Bool) async throws -> Figures {
    try await measure(try await open(transport), commands: commands)
}

func measure(_ link: some ReaderLink, commands: Bool) async throws -> Figures {
    var inbound = link.inbound.makeAsyncIterator()
    var decoder = FrameDecoder()
    for _ in 0..<20 { _ = try await exchange(link, &inbound, decoder: &decoder) }
    var latencies: [Duration] = []
    for _ in 0..<200 { latencies.append(try await exchange(link, &inbound, decoder: &decoder)) }
    latencies.sort()
    let length = await link.maximumWriteLength
    let ordered = try await throughput(link, &inbound, decoder: &decoder, length: length) { try await link.write($0) }
    var unordered: Double?
    // "VPOS3356-1A2B (AA:…) over BlueZ (notify acquired-socket, write request)"
    let described = "\(link)"
    if commands {
        let (session, connection, writer) = try await commandWriter()
        unordered = try await throughput(link, &inbound, decoder: &decoder, length: length) { try await writer.write($0) }
        await link.close()
        await connection.disconnect()
        await session.close()
    } else {
        await link.close()
    }
    return Figures(
        transport: String(described.split(separator: "over BlueZ (").last?.dropLast() ?? described[...]), writeLength: length, medianLatency: latencies[latencies.count / 2],
        p90Latency: latencies[latencies.count * 9 / 10], bytesPerSecond: ordered, commandsPerSecond: unordered)
}

func seconds(_ duration: Duration) -> Double {
    let (whole, fraction) = duration.components
    return Double(whole) + Double(fraction) / 1e18
}

func milliseconds(_ duration: Duration) -> String {
    let value = seconds(duration) * 1000
    return String(Double(Int(value * 100)) / 100)
}

let sockets = try await measure(.acquiredSocket, commands: true)
let messages = try await measure(.dbusMessages, commands: false)
print("link | write size | write→notify latency, median (p90) | host→reader throughput")
print("--- | --- | --- | ---")
for figures in [sockets, messages] {
    print(
        "\(figures.transport) | \(figures.writeLength) B | \(milliseconds(figures.medianLatency)) ms (\(milliseconds(figures.p90Latency)) ms)"
            + " | \(Int(figures.bytesPerSecond / 1024)) KiB/s")
}
if let commands = sockets.commandsPerSecond {
    print("write command over acquired-socket, unordered | \(sockets.writeLength) B | - | \(Int(commands / 1024)) KiB/s")
    let cost = sockets.bytesPerSecond / commands
    print("order (requests ÷ commands): \(Double(Int(cost * 100)) / 100) of the unordered throughput")
}
let latencyRatio = seconds(messages.medianLatency) / seconds(sockets.medianLatency)
print("notify sockets ÷ messages: latency \(Double(Int(latencyRatio * 100)) / 100)× shorter")
