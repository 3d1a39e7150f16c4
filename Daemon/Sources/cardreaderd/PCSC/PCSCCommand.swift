import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// `cardreaderd pcsc`: the readers' chip slots as PC/SC readers, for every smart-card
/// program on the host (through pcscd and the driver, libcardreaderd-ifd.so).
struct PCSCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pcsc",
        abstract: "Make the readers' chip slots PC/SC readers (pcscd's driver), or stop.",
        discussion: """
            The driver hands the cards' raw APDUs (card numbers included) to every program \
            that can reach pcscd's socket: read the guide's security section first (ChipSlotForPCSCPrograms.md, in share/doc/cardreaderd).
            """,
        subcommands: [PCSCInstallCommand.self, PCSCUninstallCommand.self])
}

/// Where the driver's files go, under a system root (`/`, or a directory of one's own), and
/// where the running pcscd is (the host's, whatever the root).
struct PCSCPaths {
    var root: String

    /// Where Debian's pcscd keeps drivers that reader.conf.d entries name.
    var driverLibrary: String { root + "usr/lib/pcsc/drivers/serial/libcardreaderd-ifd.so" }
    /// The directory pcscd reads reader entries from when it starts.
    var readerConfDirectory: String { root + "etc/reader.conf.d" }
    var serviceConfiguration: String { root + "etc/cardreaderd/config.json" }
    /// The pid file every pcscd writes.
    let pcscdPIDFile = "/run/pcscd/pcscd.pid"
    /// pcscd's socket, as PC/SC programs find it: `PCSCLITE_CSOCK_NAME`, else pcsc-lite's own.
    var pcscdSocket: String {
        getenv("PCSCLITE_CSOCK_NAME").map { String(cString: $0) } ?? "/run/pcscd/pcscd.comm"
    }

    init(root: String) {
        self.root = root.hasSuffix("/") ? root : root + "/"
    }
}

/// The options `install` and `uninstall` share: cardreaderd's (its configuration, by
/// default /etc/cardreaderd/config.json under the system root, and its socket), and where
/// the files go.
struct PCSCLocationOptions: ParsableArguments {
    @OptionGroup var service: ServiceLocation

    @Option(help: ArgumentHelp("Put the files under this directory instead of /, the entries naming the driver there (a pcscd of one's own reads DIR/etc/reader.conf.d).", valueName: "dir"))
    var systemRoot = "/"

    var paths: PCSCPaths { PCSCPaths(root: systemRoot) }
    var configurationFile: String { service.config ?? paths.serviceConfiguration }
}

/// One line of what `pcsc install` and `uninstall` did, for the person who ran them, on
/// standard output (the daemon itself logs through swift-log; these commands talk).
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}
