import CPCSCDriverInterface

/// What IFDHGetCapabilities answers for each tag it knows.
package enum IFDCapabilities {
    /// The value of `tag` for `channel`'s slot; nil for a tag the driver does not answer.
    package static func value(of tag: PCSCDriverWord, for channel: SlotChannel?) -> [UInt8]? {
        guard let capability = IFDCapability(rawValue: tag) else { return nil }
        switch capability {
        case .answerToReset, .answerToResetAttribute: return channel?.answerToReset
        case .slotThreadSafe: return [0]
        // Every reader has its own channel, and a channel its own lock.
        case .threadSafe: return [1]
        case .slotCount: return [1]
        case .simultaneousAccess: return [PCSCDriver.simultaneousReaders]
        case .vendorName: return Array("CardReaderKit".utf8) + [0]
        case .vendorReaderType: return Array("VPOS3356 through cardreaderd".utf8) + [0]
        }
    }
}
