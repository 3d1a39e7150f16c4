#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The running bluetoothd as a program: its command line and version, found from its
/// process ID (which the bus gives).
struct BluetoothdProgram: Sendable {
    /// Its command line, e.g. `/usr/sbin/bluetoothd -n`; nil if /proc does not say.
    var commandLine: String?
    /// Its executable, if it could be found.
    var executable: String?

    /// Folders a distribution installs bluetoothd in, besides PATH.
    static let usualFolders = ["/usr/libexec/bluetooth", "/usr/lib/bluetooth", "/usr/sbin", "/usr/local/libexec/bluetooth"]

    init(processID: UInt32) {
        let words = SystemFiles.contents(of: "/proc/\(processID)/cmdline").map { bytes in
            bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        }
        commandLine = words.map { $0.joined(separator: " ") }
        let linked = SystemFiles.linkTarget("/proc/\(processID)/exe")
        executable = linked ?? words?.first.flatMap(Self.locate)
    }

    /// `name` as a path: itself when it has a slash, else found in PATH or the usual folders.
    static func locate(_ name: String) -> String? {
        guard !name.contains("/") else { return SystemFiles.isExecutable(name) ? name : nil }
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        let folders = path.split(separator: ":").map(String.init) + usualFolders
        return folders.lazy.map { "\($0)/\(name)" }.first(where: SystemFiles.isExecutable)
    }

    /// Whether `executable` is named bluetoothd (the only program asked for its version).
    static func isBluetoothd(_ executable: String) -> Bool {
        executable.split(separator: "/").last == "bluetoothd"
    }

    /// What `bluetoothd --version` prints (`5.66`); nil if it prints something else, or
    /// `executable` is not a bluetoothd.
    static func version(of executable: String) -> String? {
        guard isBluetoothd(executable), let output = ProgramOutput.run(executable, ["--version"]),
            !output.isEmpty, output.allSatisfy({ $0.isNumber || $0 == "." })
        else { return nil }
        return output
    }
}
