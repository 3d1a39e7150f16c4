/// Which way a frame travelled.
public enum LinkDirection: Sendable, Hashable, CustomStringConvertible {
    /// Written by the host to the reader's RX characteristic: commands.
    case hostToReader
    /// Notified by the reader on its TX characteristic: responses and events.
    case readerToHost

    /// `host-to-reader` or `reader-to-host`.
    public var description: String {
        switch self {
        case .hostToReader: "host-to-reader"
        case .readerToHost: "reader-to-host"
        }
    }
}

/// Any frame, decoded by its direction and code.
public enum ReaderMessage: Sendable, Hashable {
    /// A host → reader command.
    case command(ReaderCommand)
    /// A reader → host answer to a command.
    case response(ReaderResponse)
    /// A reader-initiated event (MAIN `E0`).
    case event(ReaderEvent)

    /// Host → reader frames are commands; reader → host frames are events (MAIN `E0`) or
    /// responses.
    public init(frame: Frame, direction: LinkDirection) throws(MessageDecodingError) {
        switch direction {
        case .hostToReader:
            self = .command(try ReaderCommand(frame: frame))
        case .readerToHost where frame.code.isEvent:
            self = .event(try ReaderEvent(frame: frame))
        case .readerToHost:
            self = .response(try ReaderResponse(frame: frame))
        }
    }
}
