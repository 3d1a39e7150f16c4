import ReaderProtocol

/// What ``CardReader`` does after a transition of its ``ReaderStateMachine``, in order.
enum ReaderAction {
    /// The command `id`'s caller resumes with this outcome.
    case complete(UInt64, Result<ReaderResponse, CardReaderError>)
    /// The command `id` waiting for earlier CANCELs' answers resumes: `settled` or not.
    case settleCancels(UInt64, settled: Bool)
    /// Writes CANCEL to the reader.
    case sendCancel
    /// Event subscribers get `event`.
    case broadcast(CardReaderEvent)
    /// The battery level a battery-low event reported goes to the metrics.
    case recordBattery(UInt8)
    /// A firmware update's input goes to its channel.
    case deliver(FirmwareUpdateInput, to: ReaderStateMachine.UpdateChannel)
    /// The link closes, gone on its own (`reason`) or closed by the host (nil); its
    /// inbound task stops.
    case closeLink(ReaderStateMachine.OpenLink, reason: LinkError?)
    /// A link being opened is no longer wanted.
    case stopOpeningLink
    /// The reconnect policy's task stops.
    case stopReconnecting
    /// A timer comes due at a time elapsed since the reader was created.
    case schedule(CardReader.TimedAction, at: Duration)
    /// A timer is no longer wanted.
    case cancelTimer(CardReader.TimedAction)
    /// The link dropped on its own: the reconnect policy starts.
    case startReconnecting(after: LinkError)
    /// The connection is over: event subscribers get `.disconnected(reason)` and finish.
    case endConnection(LinkError?)
    /// Commands waiting for a reconnection resume: the link is back, or not.
    case resolveLinkWaiters(Bool)
    /// ``CardReader/connect(timeout:)`` calls waiting for a connect under way resume.
    case resolveConnectWaiters(Result<Void, CardReaderError>)
    /// The metrics count a link lost on its own.
    case countLinkLoss(LinkError)
    /// The metrics count a reconnection's outcome.
    case countReconnect(outcome: String)

    /// The log says what happened.
    case log(ReaderLogEntry)
}
