import ArgumentParser
import CardReaderContract
import FoundationEssentials
import GRPCCore
import GRPCNIOTransportHTTP2

#if canImport(Glibc)
import Glibc
#endif

/// `cardreaderd pcsc install`: the driver where pcscd looks, one reader.conf.d entry per
/// reader, and pcscd's user in the reveal list only when asked.
struct PCSCInstallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install the PC/SC driver and a pcscd entry for each reader named (or --all).",
        discussion: """
            Copies libcardreaderd-ifd.so to /usr/lib/pcsc/drivers/serial/ and writes \
            /etc/reader.conf.d/cardreaderd-READER for each reader. pcscd reads those entries \
            when it starts: a pcscd running now is not restarted (that would end every \
            smart-card program's sessions); what to do is said. APDUs reach PC/SC programs \
            only if pcscd's user is in cardreaderd's reveal list: --allow-payment-cards adds \
            it and has cardreaderd re-read its list (SIGHUP). Who can reach pcscd's socket is \
            printed: each of them can then exchange APDUs with the cards in these readers.
            """)

    @OptionGroup var location: PCSCLocationOptions

    @Option(help: ArgumentHelp("A reader cardreaderd holds, by its name (e.g. lane-1); repeat for several.", valueName: "name"))
    var reader: [String] = []

    @Flag(help: "Every reader the running cardreaderd holds.")
    var all = false

    @Flag(help: "Add pcscd's user to cardreaderd's reveal list: PC/SC programs then get the cards' raw APDUs.")
    var allowPaymentCards = false

    @Option(help: ArgumentHelp("pcscd's user, for the reveal list (default: the running pcscd's, else root).", valueName: "name"))
    var pcscdUser: String?

    @Option(help: ArgumentHelp("The driver to install (default: libcardreaderd-ifd.so beside cardreaderd, or in ../lib/cardreaderd).", valueName: "file"))
    var library: String?

    func validate() throws {
        guard all || !reader.isEmpty else { throw ValidationError("name the readers: --reader NAME (repeat it), or --all") }
        guard !(all && !reader.isEmpty) else { throw ValidationError("--all or --reader, not both") }
        for name in reader where !ReaderConfEntry.isWritable(name) {
            throw ValidationError("\(name): pcscd's configuration takes reader names of letters, digits, '-', '.' and '_'")
        }
    }

    func run() async throws {
        let paths = location.paths
        let configuration = try? DaemonConfiguration.load(from: location.configurationFile)
        let socket = location.service.socket ?? configuration?.socket?.path ?? Daemon.standardSocket
        let readers = all ? try await Self.readers(at: socket) : reader
        let source = try library ?? Self.builtLibrary()

        try PCSCFiles.install(library: source, at: paths.driverLibrary)
        say("installed the driver: \(paths.driverLibrary)")
        let entries = readers.map { ReaderConfEntry(reader: $0, socket: socket, library: paths.driverLibrary) }
        for entry in entries {
            let path = try PCSCFiles.write(entry, in: paths.readerConfDirectory)
            say("wrote \(path): \"\(entry.friendlyName)\" is \(entry.reader) at \(socket)")
        }

        let pcscd = PCSCHost.pcscd(paths)
        let pcscdUser = pcscdUser ?? pcscd?.user ?? "root"
        if let pcscd {
            say("""
                pcscd (pid \(pcscd.pid)) reads reader.conf.d when it starts: the readers appear at its next start \
                (Debian's pcscd stops by itself when no program uses it), or now with `systemctl restart pcscd`, \
                which ends every smart-card program's sessions
                """)
        } else {
            say("pcscd is not running: it opens the readers when it starts")
        }
        try revealForPCSC(user: pcscdUser, socket: socket, configuration: configuration)
        say("pcscd's socket: \(PCSCHost.socketReach(paths.pcscdSocket)); the guide ChipSlotForPCSCPrograms.md (share/doc/cardreaderd) says how to restrict it")
    }

    /// Puts pcscd's user in the reveal list when asked, and says what the list means for PC/SC.
    private func revealForPCSC(user: String, socket: String, configuration: DaemonConfiguration?) throws {
        let file = location.configurationFile
        let listed = configuration?.reveal?.contains(user) ?? false
        guard allowPaymentCards else {
            if listed {
                say("security: pcscd's user \(user) is in cardreaderd's reveal list (\(file)): every program that reaches pcscd's socket gets the cards' raw APDUs")
            } else {
                say("""
                    security: pcscd's user \(user) is not in cardreaderd's reveal list (\(file)): PC/SC programs see the readers, \
                    their cards and ATRs, and their APDUs are refused. --allow-payment-cards adds it
                    """)
            }
            return
        }
        guard var configuration else {
            throw ValidationError("--allow-payment-cards edits cardreaderd's configuration, and \(file) does not parse or is not there (--config FILE)")
        }
        if !listed {
            configuration.reveal = (configuration.reveal ?? []) + [user]
            try PCSCFiles.write(configuration, to: file)
            say("added \(user) (pcscd's user) to the reveal list in \(file)")
        }
        if let daemon = PCSCHost.cardreaderd(serving: socket) {
            kill(daemon, SIGHUP)
            say("cardreaderd (pid \(daemon)) re-reads its users and reveal list (SIGHUP): the readers stay connected")
        }
        say("security: every program that reaches pcscd's socket now gets the cards' raw APDUs, card numbers included")
    }

    /// The names of the readers the cardreaderd on `socket` holds.
    static func readers(at socket: String) async throws -> [String] {
        do {
            let transport = try HTTP2ClientTransport.Posix(target: .unixDomainSocket(path: socket), transportSecurity: .plaintext)
            let names = try await withGRPCClient(transport: transport) { client in
                try await Cardreader_V1_Readers.Client(wrapping: client).listReaders(Cardreader_V1_ListReadersRequest()).readers.map(\.name)
            }
            for name in names where !ReaderConfEntry.isWritable(name) {
                throw ValidationError("\(name): pcscd's configuration takes reader names of letters, digits, '-', '.' and '_'")
            }
            return names
        } catch let error as RPCError {
            throw ValidationError("--all asks the running cardreaderd for its readers, and \(socket) did not answer (\(error.code): \(error.message)): start it, or name the readers with --reader")
        }
    }

    /// libcardreaderd-ifd.so beside this executable (a build's products folder), or in
    /// ../lib/cardreaderd (an installation's).
    static func builtLibrary() throws -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let executable = count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let directory = executable.split(separator: "/").dropLast().joined(separator: "/")
        let candidates = ["/\(directory)/libcardreaderd-ifd.so", "/\(directory)/../lib/cardreaderd/libcardreaderd-ifd.so"]
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw ValidationError("no libcardreaderd-ifd.so beside cardreaderd (\(candidates.joined(separator: ", "))): build it (Daemon/Scripts/build cardreaderd-ifd) or name it with --library")
        }
        return found
    }
}
