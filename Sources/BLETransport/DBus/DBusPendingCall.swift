import Locking

/// The completion of one outgoing method call.
///
/// It is finished exactly once, by whichever comes first: the dispatch thread (reply,
/// error reply, connection loss), the connection's deadline timer, or the caller's
/// task-cancellation handler.
/// The result may arrive before the caller's continuation is installed (cancellation
/// racing with the start of the call); it is then kept and delivered on `install`. The
/// state's lock makes the continuation resume exactly once, so it need not be a checked
/// one (which costs an allocation per call).
final class DBusPendingCall: Sendable {
    typealias Continuation = UnsafeContinuation<Result<DBusMessage, DBusError>, Never>

    /// When the call times out, on its connection's clock (``DBusDispatchLoop/clock``).
    let deadline: Duration
    private let call: (destination: String?, path: DBusObjectPath?, interface: String?, member: String?)
    private let timeout: Duration

    private struct State {
        var continuation: Continuation?
        var earlyResult: Result<DBusMessage, DBusError>?
        var finished = false
    }

    private let state = Locked(State())

    init(_ message: DBusMessage, timeout: Duration, now: Duration) {
        deadline = now + timeout
        self.timeout = timeout
        call = (message.destination, message.path, message.interface, message.member)
    }

    /// E.g. `org.bluez /org/bluez/hci0 org.bluez.Adapter1.StartDiscovery after 10 seconds`:
    /// built only when a deadline passes, not for every call.
    var callDescription: String {
        "\(call.destination ?? "-") \(call.path?.rawValue ?? "") "
            + "\(call.interface.map { $0 + "." } ?? "")\(call.member ?? "") after \(timeout)"
    }

    func install(_ continuation: Continuation) {
        let early = state.withLock { state -> Result<DBusMessage, DBusError>? in
            if let result = state.earlyResult {
                state.earlyResult = nil
                return result
            }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Finishes the call; returns false if it was already finished.
    @discardableResult
    func finish(_ result: Result<DBusMessage, DBusError>) -> Bool {
        let (won, continuation) = state.withLock { state -> (Bool, Continuation?) in
            guard !state.finished else { return (false, nil) }
            state.finished = true
            if let continuation = state.continuation {
                state.continuation = nil
                return (true, continuation)
            }
            state.earlyResult = result
            return (true, nil)
        }
        continuation?.resume(returning: result)
        return won
    }

    var isFinished: Bool { state.withLock { $0.finished } }
}
