#if canImport(Glibc)
import Glibc
#endif

/// The Bluetooth controllers the kernel has (`hci0`, `hci1`…), from `/sys/class/bluetooth`:
/// what bluetoothd registers as adapters once it runs. A controller the kernel has and
/// bluetoothd does not list means bluetoothd is starting; one the kernel does not have
/// either is not there at all.
public enum KernelBluetoothControllers {
    /// The controllers' names, sorted; empty where the directory is absent (no Bluetooth
    /// support in the kernel, or a container without sysfs).
    public static func names(in directory: String = "/sys/class/bluetooth") -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("hci"), !name.contains(":") { names.append(name) }
        }
        return names.sorted()
    }
}
