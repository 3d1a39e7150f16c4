/// One reader's connection attempt in ``ReaderFleet/connectAll(_:timeout:configuration:clock:)``:
/// its reader, or why it could not connect.
public struct ReaderConnectionOutcome<Found: Sendable>: Sendable {
    /// The reader, as the fleet found it.
    public var device: Found
    /// The connected reader, or why it could not connect within the timeout.
    public var result: Result<CardReader, CardReaderError>

    /// The attempt to connect to `device`, and how it ended.
    public init(device: Found, result: Result<CardReader, CardReaderError>) {
        self.device = device
        self.result = result
    }
}
