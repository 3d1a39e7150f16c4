import ReaderProtocol

/// A firmware update of one reader, as the progress it makes: iterating starts it, each
/// element says where it is, the last has phase ``FirmwareUpdateProgress/Phase/completed``,
/// and a failure ends the iteration with ``CardReaderError/firmwareUpdateFailed(_:)`` (or
/// the connection error that stopped it). Cancelling the iterating task cancels the update:
/// before or during the transfer with `CAN CAN` (the reader keeps its old firmware); once the
/// reader verified the image, it restarts on it whatever happens, and the update ends with
/// ``FirmwareUpdateError/Code/installedUnconfirmed``.
///
/// ```swift
/// let image = try FirmwareImage(bytes: vfwBytes)
/// for try await progress in reader.updateFirmware(image: image) {
///     print(progress)   // transferring 42% (1290/3028 bytes, 5.1 KiB/s, 0:01 left)
/// }
/// ```
/// ``run(progress:)`` does the same and returns the report.
public struct FirmwareUpdate: AsyncSequence, Sendable {
    /// Each element is where the update is.
    public typealias Element = FirmwareUpdateProgress
    /// An update that fails ends the iteration with this error.
    public typealias Failure = CardReaderError

    let reader: CardReader
    let image: FirmwareImage
    let options: FirmwareUpdateOptions

    /// Runs the update to its end, handing each progress to `progress`, and returns the report.
    public func run(progress: (@Sendable (FirmwareUpdateProgress) -> Void)? = nil) async throws(CardReaderError)
        -> FirmwareUpdateReport
    {
        try await reader.runFirmwareUpdate(image: image, options: options) { progress?($0) }
    }

    /// An iterator whose first ``Iterator/next()`` starts the update.
    public func makeAsyncIterator() -> Iterator {
        Iterator(update: self)
    }

    /// Starts the update on the first ``next()`` and hands over its progress; dropping the
    /// iterator before the update ended cancels it.
    public struct Iterator: AsyncIteratorProtocol {
        /// Runs the update; cancels it when the iterator goes away before it ended.
        final class Worker: Sendable {
            /// The update's failure, nil when it succeeded.
            let task: Task<CardReaderError?, Never>
            init(_ task: Task<CardReaderError?, Never>) { self.task = task }
            deinit { task.cancel() }
        }

        private let update: FirmwareUpdate
        private var items: AsyncStream<FirmwareUpdateProgress>.Iterator?
        private var worker: Worker?
        private var done = false

        init(update: FirmwareUpdate) {
            self.update = update
        }

        /// The next progress; nil after the update completed; throws the error that ended it.
        /// Cancelling the calling task cancels the update.
        public mutating func next() async throws(CardReaderError) -> FirmwareUpdateProgress? {
            guard !done else { return nil }
            if items == nil {
                let (stream, continuation) = AsyncStream.makeStream(of: FirmwareUpdateProgress.self)
                let update = update
                worker = Worker(
                    Task {
                        defer { continuation.finish() }
                        do throws(CardReaderError) {
                            _ = try await update.run { continuation.yield($0) }
                            return nil
                        } catch {
                            return error
                        }
                    })
                items = stream.makeAsyncIterator()
            }
            let worker = worker
            var iterator = items
            let item = await withTaskCancellationHandler {
                await iterator?.next()
            } onCancel: {
                worker?.task.cancel()
            }
            items = iterator
            if let item { return item }
            // The stream ended, or this task was cancelled (which ends a stream's wait at
            // once): the update's own outcome decides.
            done = true
            if let failure = await worker?.task.value { throw failure }
            return nil
        }
    }
}

extension CardReader {
    /// Updates the reader's firmware to `image` (documentation §7). Nothing happens until
    /// the returned sequence is iterated or run. See ``FirmwareUpdate``.
    ///
    /// Before a byte of the image is sent: GET INFO, the image's model against the
    /// reader's, and the battery (at least ``FirmwareUpdateOptions/minimumBattery``). Then
    /// ENTER FIRMWARE UPDATE and the YModem-1K transfer; while it runs no other command is
    /// sent (they wait) and nothing reaches the frame decoder. After the reader verifies the
    /// image it restarts: the update reconnects to it through the same connector and
    /// confirms the new version with GET INFO.
    public nonisolated func updateFirmware(image: FirmwareImage, options: FirmwareUpdateOptions = FirmwareUpdateOptions())
        -> FirmwareUpdate
    {
        FirmwareUpdate(reader: self, image: image, options: options)
    }
}
