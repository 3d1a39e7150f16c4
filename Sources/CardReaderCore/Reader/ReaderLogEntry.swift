import ReaderProtocol

/// What ``CardReader`` logs on the state machine's word: the line's damage and the
/// exchange's mishaps, none of which changes what a caller gets.
enum ReaderLogEntry {
    /// Bytes from the reader that were not a frame.
    case lineDamage(FrameDamage)
    /// An incomplete frame received nothing for the timeout and was cut off.
    case frameCutOff
    /// An answer no command waits for (stale, or under another code).
    case discarded(CommandCode)
    /// An event frame that does not decode.
    case malformedEvent(MessageDecodingError)
    /// A command got no answer within its limit.
    case noAnswerInTime(CommandCode, limit: Duration)
    /// A command's caller was cancelled; CANCEL follows.
    case cancelling(CommandCode)
    /// The reader did not drop the link after accepting a firmware image.
    case restartNotSeen
}
