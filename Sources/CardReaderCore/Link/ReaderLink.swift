/// The seam between the reader core and whatever carries bytes to a reader: BlueZ over
/// Bluetooth LE, or an in-process link to the emulated reader. The core runs the same
/// code over both.
///
/// A link carries packets, not frames: the reader splits each frame into packets of at
/// most ``maximumWriteLength`` bytes and reassembles frames from the notifications that
/// ``inbound`` delivers, whatever their boundaries.
public protocol ReaderLink: Sendable {
    /// The largest packet one write or notification carries: the ATT MTU − 3 (20 at the
    /// default MTU of 23). It may grow once the link has negotiated a larger MTU.
    var maximumWriteLength: Int { get async }

    /// Writes one packet of at most ``maximumWriteLength`` bytes, returning when the link
    /// has taken it. At most one write is in flight at a time.
    func write(_ packet: [UInt8]) async throws(LinkError)

    /// Whether the link is encrypted: decided when it opened (an encrypted link never
    /// becomes unencrypted), and what ``CardReader`` checks before a card operation.
    var security: LinkSecurity { get }

    /// What ``inbound`` is: an `AsyncStream<LinkInbound>`, or a transport's own sequence.
    associatedtype Inbound: AsyncSequence<LinkInbound, Never> & Sendable

    /// Everything the reader sends, in order: each notification as it arrived, then, if the
    /// link drops, one `LinkInbound.dropped(_:)`. It finishes after a drop or ``close()``.
    /// There is one consumer: the reader (`CardReader`).
    var inbound: Inbound { get }

    /// Ends the link (disconnects). Idempotent; ``inbound`` finishes.
    func close() async

    /// The executor whose thread fills ``inbound`` and completes writes, if the link has
    /// one: the reader runs its inbound and write tasks there, so a notification
    /// reaches the frame decoder, and a write's completion its writer, on the thread that
    /// read it. Its work must not block. Nil (the default): the global executor.
    var executor: (any TaskExecutor)? { get }

    /// The reader's battery level from the Battery service (`2A19`; over BlueZ,
    /// `org.bluez.Battery1`), if the link carries it: the level when the link opens, then each
    /// change, finishing when the link ends. Nil (the default): the level comes from GET
    /// INFO and the reader's battery-low event only.
    var batteryLevels: AsyncStream<UInt8>? { get }
}

extension ReaderLink {
    /// The link does not carry the Battery service.
    public var batteryLevels: AsyncStream<UInt8>? { nil }

    /// No executor of its own: the reader's tasks run on the global executor.
    public var executor: (any TaskExecutor)? { nil }
}

/// Opens links to one reader: over BlueZ, or to an emulated reader.
public protocol ReaderConnector: Sendable {
    /// A name for messages, e.g. `VPOS3356-1A2B (AA:BB:CC:DD:EE:FF)` or `emulated VPOS3356`.
    var readerDescription: String { get }

    /// Opens a link. It may take long (discovery, connection, service resolution): the
    /// caller bounds it with its deadline and cancels the task when that passes.
    func connect() async throws(LinkError) -> any ReaderLink
}
