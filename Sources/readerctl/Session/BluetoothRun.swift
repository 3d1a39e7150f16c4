import ArgumentParser
import BLETransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs Bluetooth work that ends on its own or with Ctrl-C (a normal stop, exit 0); a
/// BlueZ failure is printed and exits with the link status.
enum BluetoothRun {
    static func perform(_ work: @escaping @Sendable () async throws(BluetoothError) -> Void) async throws {
        let interrupt = InterruptSignal()
        let task = Task { () -> BluetoothError? in
            do throws(BluetoothError) {
                try await work()
                return nil
            } catch {
                return Task.isCancelled ? nil : error
            }
        }
        interrupt.cancels(task)
        if let error = await task.value {
            ErrorReport.write(error.description, fix: error.fix)
            throw ExitStatus.linkLost.exitCode
        }
    }
}
