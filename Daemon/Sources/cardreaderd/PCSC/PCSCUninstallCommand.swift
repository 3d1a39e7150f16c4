import ArgumentParser

/// `cardreaderd pcsc uninstall`: the entries `install` wrote and the driver, removed.
struct PCSCUninstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall",
        abstract: "Remove the PC/SC driver and the reader.conf.d entries install wrote.",
        discussion: """
            A pcscd running now keeps the readers until it stops (Debian's stops by itself \
            when no program uses it; `systemctl restart pcscd` ends every smart-card \
            program's sessions). The reveal list is not changed: remove pcscd's user from it \
            if nothing else needs it.
            """)

    @OptionGroup var location: PCSCLocationOptions

    func run() throws {
        let paths = location.paths
        let entries = PCSCFiles.entries(in: paths.readerConfDirectory)
        for entry in entries {
            try PCSCFiles.remove(entry)
            say("removed \(entry)")
        }
        try PCSCFiles.remove(paths.driverLibrary)
        say("removed \(paths.driverLibrary)")
        if let pcscd = PCSCHost.pcscd(paths) {
            say("pcscd (pid \(pcscd.pid)) keeps the readers it opened until it stops: `systemctl restart pcscd` drops them now, ending every smart-card program's sessions")
        }
        say("the reveal list in \(location.configurationFile) is as it was: remove pcscd's user from it if nothing else needs it")
    }
}
