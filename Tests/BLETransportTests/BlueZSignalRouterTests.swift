@testable import BLETransport
import BlueZTestSupport
import CardReaderKitTesting
import Dispatch
import ManualClockSteps
import Testing

/// The router that hands BlueZ's signals to the objects following them, against a fake
/// bluetoothd on a private dbus-daemon.
@Suite(.needsDBus) struct BlueZSignalRouterTests {
    /// A route is cancelled at once while another route's delivery is under way on the
    /// dispatch thread: deliveries run outside the router's lock. Under it, a discovery
    /// stopped just as bluetoothd's next signal resumed it deadlocked (the runtime resumes a
    /// task, and runs its cancellation handlers, under that task's own lock; ending the
    /// discovery's stream cancels its route): the dispatch thread read the bus no more, no
    /// call got its reply or its deadline, and `readerctl swipe` waited for ever.
    @Test func aRouteIsCancelledWhileAnotherRouteIsBeingDelivered() async throws {
        try await withFakeBlueZ({ try $0.addAdapter("hci0", powered: true) }) { session, fake in
            let delivering = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let blocking = try await session.signals.route(
                under: "/org/bluez/hci0",
                deliver: { _ in
                    delivering.signal()
                    release.wait()
                }, end: {})
            let other = try await session.signals.route(under: "/org/bluez/hci0", deliver: { _ in }, end: {})
            try fake.connection.setProperty("Powered", interface: "org.bluez.Adapter1", path: "/org/bluez/hci0", to: .bool(true))
            let bound = WaitBound.inProcess.components.seconds
            // Blocking waits happen on a thread of their own, never on the cooperative pool.
            let (entered, cancelled) = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    guard delivering.wait(timeout: .now() + .seconds(Int(bound))) == .success else {
                        release.signal()
                        continuation.resume(returning: (false, false))
                        return
                    }
                    let done = DispatchSemaphore(value: 0)
                    DispatchQueue.global().async {
                        other.cancel()
                        done.signal()
                    }
                    let cancelled = done.wait(timeout: .now() + .seconds(Int(bound))) == .success
                    release.signal()
                    continuation.resume(returning: (true, cancelled))
                }
            }
            #expect(entered, "the signal did not reach the route within \(bound) s")
            #expect(cancelled, "cancelling a route waited for another route's delivery")
            blocking.cancel()
        }
    }
}
