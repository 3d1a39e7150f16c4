import BLETransport
import CardReaderKit

/// The order of `readerctl doctor`'s checks and what each needs: it stops at the first
/// failure whose dependants cannot run; the report marks the rest skipped.
struct Diagnosis: Sendable {
    var adapter: String?
    var reader: String?
    var scanTimeout: Duration
    var connectTimeout: Duration
    /// How many LE links an adapter may hold before `LE links` warns.
    var leLinkLimit: Int

    /// The checks this run reports: the stack's, and the reader's with `--reader`.
    var steps: [DoctorStep] {
        reader == nil ? DoctorStep.allCases.filter { !DoctorStep.readerSteps.contains($0) } : DoctorStep.allCases
    }

    func run(into report: DoctorReport) async {
        guard await report.check(.library, { StackChecks.library() }) != nil,
            let session = await report.check(.systemBus, { await StackChecks.systemBus() })
        else { return }
        await runStack(on: session, into: report)
        await session.close()
    }

    private func runStack(on session: BluetoothSession, into report: DoctorReport) async {
        guard let program = await report.check(.bluetoothd, { await StackChecks.bluetoothd(session) }),
            let adapters = await report.check(.busPolicy, { await StackChecks.busPolicy(session) })
        else { return }
        _ = await report.check(.version, { StackChecks.version(program, adapters: adapters) })
        guard let adapter = await report.check(.adapter, { StackChecks.adapter(named: self.adapter, among: adapters) })
        else { return }
        // rfkill and LE run even when the adapter is off: they may say why.
        let powered = await report.check(.powered, { StackChecks.powered(adapter) }) != nil
        let unblocked = await report.check(.rfkill, { StackChecks.rfkill(adapter) }) != nil
        let lowEnergy = await report.check(.lowEnergy, { StackChecks.lowEnergy(adapter) }) != nil
        _ = await report.check(.leLinks, { await StackChecks.leLinks(on: adapters, limit: leLinkLimit) })
        guard powered, unblocked, lowEnergy, !Task.isCancelled else { return }
        let filter = reader.map(DiscoveryFilter.init(nameOrAddress:))
        guard let (devices, seenAfter) = await report.check(.discovery, {
            await StackChecks.discovery(adapter, for: scanTimeout, reader: filter)
        }), let filter else { return }
        await runReader(filter, devices: devices, seenAfter: seenAfter, on: adapter, into: report)
    }

    private func runReader(
        _ filter: DiscoveryFilter, devices: [BluetoothDeviceInfo], seenAfter: Duration?, on adapter: BluetoothAdapter,
        into report: DoctorReport
    ) async {
        guard
            let device = await report.check(.readerFound, {
                ReaderChecks.found(filter, among: devices, seenAfter: seenAfter, on: adapter, within: scanTimeout)
            }),
            !Task.isCancelled,
            let connection = await report.check(.connected, {
                await ReaderChecks.connected(device, on: adapter, within: connectTimeout)
            })
        else { return }
        guard let table = await report.check(.readerService, { await ReaderChecks.service(connection, device: device) }),
            await report.check(.transmit, {
                ReaderChecks.characteristic(ReaderChecks.transmitUUID, in: table, needing: ["notify", "indicate"], for: "reading frames")
            }) != nil,
            await report.check(.receive, {
                ReaderChecks.characteristic(
                    ReaderChecks.receiveUUID, in: table, needing: ["write", "write-without-response"], for: "writing frames")
            }) != nil,
            !Task.isCancelled
        else {
            await connection.disconnect()
            return
        }
        // A reader that needs pairing is disconnected by its check: TX is never touched.
        guard await report.check(.linkSecurity, { await ReaderChecks.linkSecurity(connection, device: device) }) != nil
        else { return }
        // A binding that fails disconnects; the reader disconnects after GET INFO.
        guard let link = await report.check(.notifications, { await ReaderChecks.notifications(connection, transport: .acquiredSocket) })
        else { return }
        let session = ReaderChecks.session(over: link)
        _ = await report.check(.getInfo, { await ReaderChecks.getInfo(session) })
        await session.disconnect()
    }
}
