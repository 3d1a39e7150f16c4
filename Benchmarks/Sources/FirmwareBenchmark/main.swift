// Firmware update throughput over the emulated link: one reader alone and 3 and 7 side by
// side, at ATT MTU 23 and 247, beside the link's bound measured in the same run (payload
// per write × writes per second the link takes for frame-sized packets).
import CardReaderKit
import CardReaderKitTesting
import Logging

let clock = ContinuousClock()
let quiet: Logger = {
    var logger = Logger(label: "FirmwareBenchmark")
    logger.logLevel = .error
    return logger
}()
let imageSize = 128 * 1024

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Bytes per second the emulated link takes in packets of MTU − 3 (line noise to the reader).
func linkBound(mtu: Int) async throws -> Double {
    let reader = EmulatedReader()
    let link = try await EmulatedReaderLink(reader: reader, mtu: mtu)
    let packet = [UInt8](repeating: 0xFF, count: mtu - 3)
    let count = 20_000
    let start = clock.now
    for _ in 0..<count { try await link.write(packet) }
    let elapsed = seconds(clock.now - start)
    await link.close()
    return Double(count * packet.count) / elapsed
}

/// Updates `readers` emulated readers at once; each reader's transfer rate and the total.
func update(readers: Int, mtu: Int, image: FirmwareImage) async throws -> (perReader: [Double], total: Double) {
    let configuration = EmulatedReaderConfiguration(
        firmwareDisconnectDelay: .milliseconds(1), firmwareRestartTime: .milliseconds(1))
    var sessions: [CardReader] = []
    for _ in 0..<readers {
        let emulator = EmulatedReader(configuration: configuration, logger: quiet)
        let session = CardReader(connector: EmulatedReaderConnector(reader: emulator, mtu: mtu), logger: quiet)
        try await session.connect()
        sessions.append(session)
    }
    let start = clock.now
    let reports = try await withThrowingTaskGroup(of: FirmwareUpdateReport.self) { group in
        for session in sessions {
            group.addTask { try await session.updateFirmware(image: image).run() }
        }
        var reports: [FirmwareUpdateReport] = []
        for try await report in group { reports.append(report) }
        return reports
    }
    let wall = seconds(clock.now - start)
    for session in sessions { await session.disconnect() }
    let rates = reports.map { Double($0.bytes) / seconds($0.transferDuration) }
    return (rates, Double(reports.count * image.bytes.count) / wall)
}

func kib(_ rate: Double) -> String {
    String(Double(Int(rate / 102.4)) / 10) + " KiB/s"
}

var generator = SystemRandomNumberGenerator()
let payload = (0..<imageSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
let image = try FirmwareImage(bytes: FirmwareImage.encode(model: "VPOS3356", version: "9.9.9", payload: payload))
print("## Firmware update over the emulated link (\(image.bytes.count) bytes, YModem-1K)")
print("| MTU | link bound | readers | per reader (median) | total | solo / bound | per reader / solo |")
print("|---|---|---|---|---|---|---|")
for mtu in [23, 247] {
    let bound = try await linkBound(mtu: mtu)
    var solo = 0.0
    for readers in [1, 3, 7] {
        let (rates, total) = try await update(readers: readers, mtu: mtu, image: image)
        let median = rates.sorted()[rates.count / 2]
        if readers == 1 { solo = median }
        let soloRatio = String(Double(Int(solo / bound * 1000)) / 10) + " %"
        let shareRatio = String(Double(Int(median / solo * 1000)) / 10) + " %"
        print("| \(mtu) | \(kib(bound)) | \(readers) | \(kib(median)) | \(kib(total)) | \(soloRatio) | \(shareRatio) |")
    }
}
