import CardReaderContract
import CardReaderKit
import SwiftProtobuf

/// The SDK's status, events and reasons as the contract's messages. None of them carries
/// card data.
extension Cardreader_V1_ReaderStatus {
    package init(_ status: CardReader.Status, heldBy holder: Caller?) {
        self.init()
        switch status.link {
        case .disconnected: link = .disconnected
        case .connecting: link = .connecting
        case .ready: link = .ready
        case .busy(let command):
            link = .busy
            busyCommand = command.commandName ?? "\(command)"
        case .updating(let progress):
            link = .updating
            update = Cardreader_V1_UpdateFirmwareProgress(progress)
        case .reconnecting(let attempt, _):
            link = .reconnecting
            reconnectAttempt = UInt32(clamping: attempt)
        case .resetting: link = .resetting
        case .lost: link = .lost
        }
        if let battery = status.battery {
            self.battery = .with {
                $0.percent = UInt32(battery.percent)
                $0.low = battery.isLow
                $0.source = battery.source.rawValue
                $0.readUnixSeconds = Int64(battery.readAt.secondsSince1970)
            }
        }
        firmwareVersion = status.firmwareVersion ?? ""
        // The reason the link is lost or being restored, else the last drop's.
        let reason: DisconnectReason? =
            switch status.link {
            case .lost(let reason), .reconnecting(_, let reason): reason
            default: status.lastDisconnect
            }
        if let reason { lastDisconnect = Cardreader_V1_DisconnectReason(reason) }
        if let expected = status.resetExpected { resetExpectedUnixSeconds = Int64(expected.secondsSince1970) }
        heldBy = holder?.principal ?? ""
    }
}

extension Cardreader_V1_DisconnectReason {
    package init(_ reason: DisconnectReason) {
        self.init()
        code = reason.code.rawValue
        description_p = reason.description
        fix = reason.fix ?? ""
    }
}

extension Cardreader_V1_UpdateFirmwareProgress {
    package init(_ progress: FirmwareUpdateProgress) {
        self.init()
        phase = progress.phase.rawValue
        bytesSent = UInt64(progress.bytesSent)
        bytesTotal = UInt64(progress.totalBytes)
        bytesPerSecond = progress.bytesPerSecond ?? 0
    }
}

extension Cardreader_V1_ReaderEvent {
    package init(_ event: CardReaderEvent) {
        self.init()
        name = event.name
        switch event {
        case .batteryLow(let percent): batteryPercent = UInt32(percent)
        case .resetScheduled(let delay): secondsUntilReset = UInt32(clamping: delay.components.seconds)
        default: break
        }
    }
}
