import BLETransport
import Foundation

// The D-Bus path of BLETransport beside raw libdbus, in one run against one private
// dbus-daemon. The reference is Benchmarks/Reference/dbus_reference.c, built twice by
// Benchmarks/run: linked against libdbus-1.so.3, and through the SDK's run-time loader.
// Times are per operation; the ratios are what to compare between runs and machines.
//
// Usage: DBusBenchmark LINKED-REFERENCE LOADED-REFERENCE

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: DBusBenchmark LINKED-REFERENCE LOADED-REFERENCE\n".utf8))
    exit(64)
}

let bus = try PrivateBus()
defer { bus.stop() }

/// Runs a reference binary against the bus at `address`: workload name → ns per operation.
func reference(_ path: String, address: String) throws -> [String: Double] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = [address]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchmarkFailure("\(path) exited \(process.terminationStatus)") }
    var figures: [String: Double] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let fields = line.split(separator: "\t")
        if fields.count == 2, let value = Double(fields[1]) { figures[String(fields[0])] = value }
    }
    return figures
}

/// What bluetoothd sends for a notification: the characteristic's path and 244 bytes.
enum Notification {
    static let characteristic: DBusObjectPath = "/org/bluez/hci0/dev_00_AA_01_00_00_23/service0010/char0011"
    static let value = (0..<244).map { UInt8($0) }
}

func nanoseconds(_ duration: Duration, per count: Int) -> Double {
    let (seconds, attoseconds) = duration.components
    return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(count)
}

/// A method call to the bus daemon and its reply, as `DBusConnection.call` makes it.
func swiftRoundTrip(_ client: DBusConnection) async throws -> Double {
    func once() async throws {
        _ = try await client.call(
            destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
            member: "NameHasOwner", body: [.string(DBusStandard.busName)])
    }
    return try await withTaskExecutorPreference(client.executor) {
        for _ in 0..<200 { try await once() }
        let calls = 5000
        let start = ContinuousClock.now
        for _ in 0..<calls { try await once() }
        return nanoseconds(ContinuousClock.now - start, per: calls)
    }
}

/// The same calls, 8 in flight at any time: 8 tasks, each making its share one after
/// another (as 8 readers in one process would): time per call.
func swiftRoundTripsInFlight(_ client: DBusConnection) async throws -> Double {
    func run(_ calls: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask(executorPreference: client.executor) {
                    for _ in 0..<calls / 8 {
                        _ = try await client.call(
                            destination: DBusStandard.busName, path: DBusStandard.busPath,
                            interface: DBusStandard.busInterface, member: "NameHasOwner",
                            body: [.string(DBusStandard.busName)])
                    }
                }
            }
            try await group.waitForAll()
        }
    }
    try await run(200)
    let calls = 5000
    let start = ContinuousClock.now
    try await run(calls)
    return nanoseconds(ContinuousClock.now - start, per: calls)
}

/// PropertiesChanged signals emitted by one connection in windows of 64 and received,
/// value read, through another's subscription, by a task on the receiving connection's
/// executor (as a reader's inbound task runs).
func swiftNotifications(_ client: DBusConnection, _ emitter: DBusConnection) async throws -> Double {
    let stream = try await client.signals(matching: .propertiesChanged(path: Notification.characteristic))
    return try await withTaskExecutorPreference(client.executor) {
        var iterator = stream.makeAsyncIterator()
        let body: [DBusValue] = [
            .string("org.bluez.GattCharacteristic1"), .stringVariantDictionary(["Value": .bytes(Notification.value)]),
            .array(elementSignature: "s", elements: []),
        ]
        let window = 64
        let total = 64 * 400
        let start = ContinuousClock.now
        for _ in stride(from: 0, to: total, by: window) {
            for _ in 0..<window {
                try emitter.emitSignal(
                    path: Notification.characteristic, interface: DBusStandard.propertiesInterface, member: "PropertiesChanged", body: body)
            }
            for _ in 0..<window {
                guard let signal = await iterator.next(), signal.body.count == 3,
                    case .dictionary(_, _, let entries) = signal.body[1],
                    case .variant(.bytes(let bytes)) = entries.first?.value, bytes.count == Notification.value.count
                else { throw BenchmarkFailure("a notification signal was lost or malformed") }
            }
        }
        return nanoseconds(ContinuousClock.now - start, per: total)
    }
}

/// Rounds alternate between the references and the SDK, so that a noisy neighbour slows
/// both alike; each figure is the median of its rounds.
let rounds = 7
var linkedRounds: [[String: Double]] = []
var loadedRounds: [[String: Double]] = []
var swiftRounds: [[String: Double]] = []
let client = try await DBusConnection.connect(address: bus.address)
let emitter = try await DBusConnection.connect(address: bus.address)
for _ in 0..<rounds {
    linkedRounds.append(try reference(arguments[1], address: bus.address))
    loadedRounds.append(try reference(arguments[2], address: bus.address))
    swiftRounds.append([
        "method call round trip through dbus-daemon": try await swiftRoundTrip(client),
        "method calls, 8 in flight, per call": try await swiftRoundTripsInFlight(client),
        "244-byte notification signal, emitted and received": try await swiftNotifications(client, emitter),
    ])
}
await client.close()
await emitter.close()

func median(_ rounds: [[String: Double]]) -> [String: Double] {
    var result: [String: Double] = [:]
    for key in Set(rounds.flatMap(\.keys)) {
        let values = rounds.compactMap { $0[key] }.sorted()
        result[key] = values[values.count / 2]
    }
    return result
}
let linked = median(linkedRounds)
let loaded = median(loadedRounds)
let swift = median(swiftRounds)

func format(_ value: Double?) -> String {
    guard let value else { return "–" }
    return value >= 10_000 ? String(Int(value.rounded())) : String(format: "%.1f", value)
}
func ratio(_ value: Double?, _ reference: Double?) -> String {
    guard let value, let reference, reference > 0 else { return "–" }
    return String(format: "%.2f", value / reference)
}

print("medians of \(rounds) alternating rounds")
print("workload | libdbus linked, ns | libdbus through the loader, ns | loader ÷ linked | BLETransport, ns | BLETransport ÷ linked")
print("--- | --- | --- | --- | --- | ---")
for workload in [
    "build and read a 244-byte PropertiesChanged", "method call round trip through dbus-daemon",
    "method calls, 8 in flight, per call",
    "244-byte notification signal, emitted and received",
] {
    print(
        "\(workload) | \(format(linked[workload])) | \(format(loaded[workload])) | \(ratio(loaded[workload], linked[workload]))"
            + " | \(format(swift[workload])) | \(ratio(swift[workload], linked[workload]))")
}

// The goal: a method call within 1.2× raw libdbus, one at a time and with 8 in flight.
for workload in ["method call round trip through dbus-daemon", "method calls, 8 in flight, per call"] {
    guard let value = swift[workload], let reference = linked[workload] else { continue }
    let ratio = value / reference
    print("goal \(workload): \(String(format: "%.2f", ratio))× raw libdbus (goal ≤ 1.20: \(ratio <= 1.2 ? "met" : "missed"))")
}
