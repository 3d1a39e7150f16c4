/// A Bluetooth rfkill switch as the kernel shows it in /sys/class/rfkill: a soft block
/// (`rfkill block`, a desktop's airplane mode) or a hard one (a switch, a key, the firmware)
/// keeps the adapter off whatever BlueZ is asked.
struct RfkillSwitch: Sendable, Hashable {
    /// The switch's folder name, e.g. `rfkill0`.
    var id: String
    /// The device it switches, e.g. `hci0`.
    var name: String
    var softBlocked: Bool
    var hardBlocked: Bool

    static let folder = "/sys/class/rfkill"

    /// Every Bluetooth switch in `folder`; nil if the folder cannot be read (no sysfs).
    static func bluetooth(in folder: String = folder) -> [RfkillSwitch]? {
        guard let ids = SystemFiles.names(in: folder) else { return nil }
        return ids.compactMap { id in
            let path = "\(folder)/\(id)"
            guard SystemFiles.text("\(path)/type") == "bluetooth" else { return nil }
            return RfkillSwitch(
                id: id, name: SystemFiles.text("\(path)/name") ?? id,
                softBlocked: SystemFiles.text("\(path)/soft") == "1", hardBlocked: SystemFiles.text("\(path)/hard") == "1")
        }
    }

    /// E.g. `rfkill0 (hci0): soft-blocked`.
    var summary: String {
        let state =
            switch (softBlocked, hardBlocked) {
            case (false, false): "not blocked"
            case (true, false): "soft-blocked"
            case (false, true): "hard-blocked"
            case (true, true): "soft- and hard-blocked"
            }
        return "\(id) (\(name)): \(state)"
    }

    /// How to lift the block.
    var fix: String {
        var steps: [String] = []
        if softBlocked {
            steps.append("`rfkill unblock bluetooth` (or, as root, `echo 0 > \(Self.folder)/\(id)/soft`)")
        }
        if hardBlocked {
            steps.append("a hard block is a hardware switch, a key combination or a firmware (BIOS) setting: turn Bluetooth on there")
        }
        return steps.joined(separator: "; ")
    }
}
