import FuzzSupport
@testable import ReaderProtocol

/// Reader messages: a frame's DATA decoded as its direction's command, response or event
/// (GET INFO fields, tracks, ATR, APDUs, slot state), and presented as `readerctl decode`
/// prints it, masked and revealed (the record is built directly: a recording decoder per
/// input would cost more than the rest, building its CRC tables).
///
/// Input: a direction byte (bit 0: reader → host), MAIN, SUB, then DATA (at most 1024 bytes).
/// A message that decodes must decode again, equal, from the frame it encodes to (GET INFO's
/// list of unknown tags aside: they are listed, not kept).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReaderMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withFuzzInput(data, size) { bytes in
        var input = FuzzInput(bytes)
        let direction: LinkDirection = input.bool() ? .readerToHost : .hostToReader
        let main = input.byte()
        let sub = input.byte()
        let frame = Frame(main: main, sub: sub, data: Array(input.rest().prefix(1024)))

        if let message = try? ReaderMessage(frame: frame, direction: direction) {
            let reencoded = message.frame
            check(reencoded.code == frame.code, "the message's frame has another code")
            check(
                (try? ReaderMessage(frame: reencoded, direction: direction)) == message.withoutUnknownTags,
                "a decoded message does not decode again from its own frame")
            _ = String(describing: message)
            _ = String(reflecting: message)
        }

        let message = Result { () throws(MessageDecodingError) in try ReaderMessage(frame: frame, direction: direction) }
        let entry = RecordingDecoder.Entry(
            direction: direction, location: 1, timestamp: nil, content: .frame(frame, offset: 0, message: message))
        _ = DecodedRecord(entry)
        _ = DecodedRecord(entry, revealingCardData: true)
    }
}

/// The process's entry point (SwiftPM's name for this module's `main`).
@_cdecl("reader_message_main")
public func mainReaderMessage(_ argc: CInt, _ argv: CArguments) -> CInt {
    fuzzerMain(argc, argv, test: fuzzReaderMessage) { fixtures in
        try fixtures.frames().map { entry in
            [entry.direction == .readerToHost ? 1 : 0, entry.frame.code.main, entry.frame.code.sub] + entry.frame.data
        }
    }
}

extension ReaderMessage {
    /// The message without the GET INFO tags it only lists.
    fileprivate var withoutUnknownTags: ReaderMessage {
        guard case .response(var response) = self, case .info(var info) = response.body else { return self }
        info.unknownTags = []
        response.body = .info(info)
        return .response(response)
    }

    /// The frame this message is sent as.
    fileprivate var frame: Frame {
        switch self {
        case .command(let command): command.frame
        case .response(let response): response.frame
        case .event(let event): event.frame
        }
    }
}
