import BLETransport
import CardReaderKit
import CardReaderKitTesting
import Testing

/// The reader without the in-process link, as a BLE peripheral backend drives it: packets
/// in through `receive`, notifications out through the connection's stream.
@Suite(.timeLimit(.minutes(1))) struct EmulatedReaderTransportTests {
    @Test func theReaderIsDrivenDirectlyThroughItsConnection() async throws {
        let reader = EmulatedReader(card: .visaSwipeOnly, clock: ManualClock())
        let connection = try await reader.connect(maximumNotificationLength: 20, encrypted: true)
        // The documentation's READ MAGNETIC STRIPE request (§2), split unevenly.
        let request = hex("02 C1 07 00 02 00 00 FC 34")
        try await reader.receive(Array(request[..<3]), connection: connection.id)
        try await reader.receive(Array(request[3...]), connection: connection.id)
        await reader.disconnect(connection: connection.id)
        var sizes: [Int] = []
        for await item in connection.notifications {
            guard case .notification(let bytes) = item else { continue }
            sizes.append(bytes.count)
        }
        // The documented 101-byte response in six notifications (§9), then the stream ends.
        #expect(sizes == [20, 20, 20, 20, 20, 1])
        let error = await #expect(throws: LinkError.self) { try await reader.receive([0x02], connection: connection.id) }
        #expect(error?.code.rawValue == "not-connected")
    }
}
