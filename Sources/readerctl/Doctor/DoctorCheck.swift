import CommandLineOutput
/// One line of `readerctl doctor`: a check, what it found, how long it took and, when it
/// failed or warns, the fix.
struct DoctorCheck: Sendable, Encodable {
    enum Status: String, Sendable, Encodable {
        case ok
        /// It holds, but something is near a limit: the line says which, the fix what to do.
        case warn = "WARN"
        case fail = "FAIL"
        case skipped
    }

    /// E.g. `system bus`.
    var check: String
    var status: Status
    /// What was found (or, for a skipped check, which failed check it needs).
    var found: String
    var fix: String?
    var milliseconds: Int?

    /// E.g. `ok       system bus            3 ms  unix:path=/run/dbus/system_bus_socket, connected as :1.7`,
    /// and for a failure a second line `         fix: …`.
    var text: String {
        let time = milliseconds.map { "\($0) ms" } ?? ""
        var line = status.rawValue.padded(to: 9) + check.padded(to: 18)
            + String(repeating: " ", count: max(0, 8 - time.count)) + time + "  " + found
        if let fix { line += "\n" + "".padded(to: 9) + "fix: " + fix }
        return line
    }
}

/// The checks, in the order they run: each needs the ones before it, except that
/// `rfkill`, `LE` and `LE links` run even when `powered` failed (they may say why).
enum DoctorStep: String, CaseIterable, Sendable {
    case library = "libdbus"
    case systemBus = "system bus"
    case bluetoothd
    case busPolicy = "bus policy"
    case version = "BlueZ version"
    case adapter
    case powered
    case rfkill
    case lowEnergy = "LE"
    case leLinks = "LE links"
    case discovery
    case readerFound = "reader found"
    case connected
    case readerService = "reader service"
    case transmit = "TX characteristic"
    case receive = "RX characteristic"
    case linkSecurity = "link security"
    case notifications
    case getInfo = "GET INFO"

    /// The checks that need `--reader`.
    static let readerSteps: [DoctorStep] = [
        .readerFound, .connected, .readerService, .transmit, .receive, .linkSecurity, .notifications, .getInfo,
    ]
}

/// What a check's work concluded: it holds (and what was found), holds with a warning
/// (what was found, and the fix), or does not hold (what was found instead, and the fix).
enum DoctorFinding<Value> {
    case holds(Value, String)
    case warns(Value, String, fix: String)
    case fails(String, fix: String?)
}
