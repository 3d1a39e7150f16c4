/// What the driver needs of cardreaderd for the readers it serves: what the service last
/// said of each (cached, never a call), and the chip session's four calls.
package protocol ChipService: Sendable {
    /// What the service last said of `reader`.
    func view(of reader: String) -> ServiceView
    /// Takes the reader's lease; it lasts until ``ServiceLease/release()``.
    func takeLease(on reader: String) async throws(DriverFailure) -> any ServiceLease
    /// Powers the card under `lease` and returns its ATR.
    func powerOn(_ reader: String, lease: String) async throws(DriverFailure) -> [UInt8]
    /// Sends one short command APDU under `lease` and returns the card's response APDU.
    func transmit(_ reader: String, lease: String, apdu: [UInt8]) async throws(DriverFailure) -> [UInt8]
    /// Powers the card off under `lease`.
    func powerOff(_ reader: String, lease: String) async throws(DriverFailure)
}

/// What the service last said of one reader.
package enum ServiceView: Sendable, Hashable {
    /// The service cannot be reached (not running, or not yet answered).
    case unreachable
    /// The service holds no reader of that name.
    case unknownReader
    case reader(ReaderView)
}

/// One reader's status, as far as PC/SC needs it.
package struct ReaderView: Sendable, Hashable {
    package enum Slot: Sendable, Hashable {
        /// The reader is not connected, or has not said yet.
        case unknown
        case empty
        case present
        case powered
    }

    /// Whether the reader is connected and takes commands (ready or busy).
    package var isConnected: Bool
    package var slot: Slot
    /// The card's ATR from its last power-on since it was inserted, by any client; empty
    /// when it has not been powered since.
    package var answerToReset: [UInt8]

    package init(isConnected: Bool, slot: Slot, answerToReset: [UInt8]) {
        self.isConnected = isConnected
        self.slot = slot
        self.answerToReset = answerToReset
    }

    package var hasCard: Bool { slot == .present || slot == .powered }
}

/// A lease on a reader, held until released (or until the service ends it).
package protocol ServiceLease: AnyObject, Sendable {
    var id: String { get }
    /// False once the service ended it (its stream closed) or it was released.
    var isHeld: Bool { get }
    /// Ends the lease: the service powers the card off if it is still powered.
    func release()
}
