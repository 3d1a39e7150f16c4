import BLETransport
import Foundation
import Testing

/// The controllers read from a directory laid out as the kernel's `/sys/class/bluetooth`
/// is (`net/bluetooth/hci_sysfs.c`): a link per controller, `hciN`, and one per
/// connection, `hciN:HANDLE`.
struct KernelBluetoothControllersTests {
    @Test func controllersAreTheHciEntriesWithoutTheirConnections() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sys-class-bluetooth-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        for entry in ["hci1", "hci0", "hci0:3585", "hci1:64"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(entry), withIntermediateDirectories: true)
        }
        #expect(KernelBluetoothControllers.names(in: directory.path) == ["hci0", "hci1"])
    }

    @Test func noDirectoryIsNoController() {
        #expect(KernelBluetoothControllers.names(in: "/nonexistent/class/bluetooth").isEmpty)
    }
}
