import CardReaderKit
import CardReaderContract
import ReaderProtocol

/// A reader's status as readerctl's `status` prints it: `link`, `batteryPercent`,
/// `batteryLow`, `batterySource`, `firmwareVersion`, `lastDisconnect` and its `fix`, and
/// who holds the reader (`heldBy`).
enum StatusFields {
    static func of(_ status: Cardreader_V1_ReaderStatus) -> [String: FieldValue] {
        var fields: [String: FieldValue] = ["link": .text(linkName(status.link))]
        if status.link == .busy { fields["command"] = .text(status.busyCommand) }
        if status.link == .reconnecting { fields["attempt"] = .integer(Int(status.reconnectAttempt)) }
        if status.hasBattery {
            fields["batteryPercent"] = .integer(Int(status.battery.percent))
            fields["batteryLow"] = .boolean(status.battery.low)
            fields["batterySource"] = .text(status.battery.source)
        }
        if !status.firmwareVersion.isEmpty { fields["firmwareVersion"] = .text(status.firmwareVersion) }
        if status.hasLastDisconnect {
            fields["lastDisconnect"] = .text(status.lastDisconnect.code)
            if !status.lastDisconnect.fix.isEmpty { fields["fix"] = .text(status.lastDisconnect.fix) }
        }
        if !status.heldBy.isEmpty { fields["heldBy"] = .text(status.heldBy) }
        return fields
    }

    /// `ready`, `reconnecting`, … as readerctl names the link's states: the contract's
    /// value without its `LINK_` prefix.
    static func linkName(_ link: Cardreader_V1_ReaderStatus.Link) -> String {
        switch link {
        case .unspecified, .UNRECOGNIZED: "unknown"
        default: "\(link)"
        }
    }
}
