import CPCSCDriverInterface
import Synchronization

/// The driver as pcscd loads it: its channels, one per reader pcscd opened (by LUN), and
/// one link per cardreaderd socket they name, opened with the first channel on it and
/// closed with the last.
package final class PCSCDriver: Sendable {
    /// The one pcscd talks to.
    package static let shared = PCSCDriver(log: .pcscd)

    private struct Registry {
        var channels: [PCSCDriverWord: SlotChannel] = [:]
        /// Links by socket path, with how many channels use each.
        var links: [String: (link: ServiceLink, users: Int)] = [:]
    }

    private let log: DriverLog
    private let registry = Mutex(Registry())

    package init(log: DriverLog) {
        self.log = log
    }

    /// IFDHCreateChannelByName: a slot for the reader `deviceName` names. Succeeds while
    /// cardreaderd is away: the reader is then unavailable until it answers.
    package func open(lun: PCSCDriverWord, deviceName: String) -> PCSCDriverResponse {
        guard let name = DriverDeviceName(deviceName) else {
            log.error("DEVICENAME \"\(deviceName)\" names no reader: write \(DriverDeviceName(reader: "lane-1")), a reader and cardreaderd's socket")
            return IFDCode.communicationError
        }
        let opened = registry.withLock { registry -> (PCSCDriverResponse, ServiceLink?) in
            if registry.channels[lun] != nil { return (IFDCode.communicationError, nil) }
            let link: ServiceLink
            if let shared = registry.links[name.socketPath] {
                link = shared.link
                registry.links[name.socketPath]?.users += 1
            } else {
                do {
                    link = try ServiceLink(socketPath: name.socketPath, log: log)
                } catch {
                    log.error("cannot use cardreaderd's socket \(name.socketPath): \(error)")
                    return (IFDCode.communicationError, nil)
                }
                link.start()
                registry.links[name.socketPath] = (link, 1)
            }
            registry.channels[lun] = SlotChannel(name: name, service: link, log: log)
            log.info("\(name.reader): opened, through cardreaderd at \(name.socketPath)")
            return (IFDCode.success, link)
        }
        guard case (let response, let link?) = opened else { return opened.0 }
        link.waitForView(of: name.reader, timeout: Self.firstViewTimeout)
        return response
    }

    /// IFDHCloseChannel: the channel's session ends; the last channel on a socket closes its link.
    package func close(lun: PCSCDriverWord) -> PCSCDriverResponse {
        let (channel, link) = registry.withLock { registry -> (SlotChannel?, ServiceLink?) in
            guard let channel = registry.channels.removeValue(forKey: lun) else { return (nil, nil) }
            let path = channel.name.socketPath
            guard let users = registry.links[path]?.users else { return (channel, nil) }
            if users > 1 {
                registry.links[path]?.users = users - 1
                return (channel, nil)
            }
            return (channel, registry.links.removeValue(forKey: path)?.link)
        }
        guard let channel else { return IFDCode.communicationError }
        channel.close()
        link?.stop()
        log.info("\(channel.name.reader): closed")
        return IFDCode.success
    }

    /// The channel pcscd opened as `lun`.
    package func channel(_ lun: PCSCDriverWord) -> SlotChannel? {
        registry.withLock { $0.channels[lun] }
    }

    /// How long opening a reader waits for the service to say how it is (the daemon
    /// answers within milliseconds; one not running is not waited for longer).
    static let firstViewTimeout = Duration.seconds(3)

    /// How many readers one driver serves at once (TAG_IFD_SIMULTANEOUS_ACCESS).
    package static let simultaneousReaders: UInt8 = 64
}
