internal import CDBus
import Locking
import Logging

/// Sending, replies matched to calls, deadlines and incoming messages: on the dispatch
/// thread, except ``sendCall(_:_:)``, which runs on the caller's.
extension DBusDispatchLoop {
    /// Any thread: writes a method call from the calling thread and registers it for its
    /// reply (matched by serial in the filter, on the dispatch thread). The registration
    /// happens under the lock the filter takes, so a reply cannot overtake it.
    func sendCall(_ message: DBusMessage, _ call: DBusPendingCall) {
        do {
            try send(message, awaitingReply: call)
        } catch {
            call.finish(.failure(error))
        }
    }

    /// Any thread: writes `message` from the calling thread, so that what one task sends
    /// (calls and messages without reply alike) leaves in the order it was sent; with
    /// `call`, registers it for its reply. Returns the message's serial.
    @discardableResult
    func send(_ message: DBusMessage, awaitingReply call: DBusPendingCall? = nil) throws(DBusError) -> UInt32 {
        if message.body.contains(where: \.containsUnixFD), !outbound.withLock({ $0.canPassUnixFDs }) {
            throw .marshalling("unix fd passing is not supported on this connection")
        }
        let raw = try DBusMarshalling.makeMessage(message)
        defer { dbus_message_unref(raw) }
        let sent = outbound.withLock { outbound -> (serial: UInt32, wake: Bool)? in
            guard let connection = outbound.connection else { return nil }
            var serial: UInt32 = 0
            // Writes at once when the socket takes it; what it does not take stays queued.
            guard dbus_connection_send(connection, raw, &serial) != 0 else { return nil }
            var wake = dbus_connection_has_messages_to_send(connection) != 0
            if let call {
                outbound.pending[serial] = call
                wake = wake || outbound.nextDeadlineCheck.map { call.deadline < $0 } ?? true
            }
            return (serial, wake)
        }
        guard let sent else { throw .disconnected(terminationReason) }
        if sent.wake { wakeUp() }
        if logger.logLevel <= .trace {
            var logged = message
            logged.serial = sent.serial
            logger.trace("D-Bus send \(logged.logDescription)")
        }
        return sent.serial
    }

    /// Any thread: drops a call that finished elsewhere (cancelled); a late reply is then
    /// ignored.
    func forget(_ call: DBusPendingCall) {
        outbound.withLock { outbound in
            if let serial = outbound.pending.first(where: { $0.value === call })?.key {
                outbound.pending[serial] = nil
            }
        }
    }

    func expireDeadlines() {
        let now = ContinuousClock.now
        let expired = outbound.withLock { outbound -> [DBusPendingCall] in
            guard !outbound.pending.isEmpty else { return [] }
            var expired: [DBusPendingCall] = []
            for (serial, call) in outbound.pending where call.isFinished || call.deadline <= now {
                outbound.pending[serial] = nil
                expired.append(call)
            }
            return expired
        }
        for call in expired { call.finish(.failure(.timeout(call.callDescription))) }
    }

    /// How long the thread sleeps at most: a caller whose call's deadline is later than
    /// the next look needs no wake-up (every BlueZ call allows seconds), so a call costs
    /// the dispatch thread nothing until its reply arrives. Idle, it looks once a second.
    static let deadlineCheckInterval: Duration = .seconds(1)

    /// The poll timeout: the earliest deadline, at most ``deadlineCheckInterval`` away,
    /// noted for callers, whose earlier deadline must wake the thread.
    func nextPollTimeout() -> Int32 {
        let now = ContinuousClock.now
        let wake = outbound.withLock { outbound -> ContinuousClock.Instant in
            var earliest = now + Self.deadlineCheckInterval
            for call in outbound.pending.values where call.deadline < earliest { earliest = call.deadline }
            outbound.nextDeadlineCheck = earliest
            return earliest
        }
        let remaining = wake - now
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1
        return Int32(clamping: milliseconds)
    }

    // MARK: Incoming messages (dispatch thread, from the libdbus filter)

    func handle(_ raw: OpaquePointer) -> DBusHandlerResult {
        switch dbus_message_get_type(raw) {
        case DBusTypeCode.messageTypeMethodReturn, DBusTypeCode.messageTypeError:
            let replySerial = dbus_message_get_reply_serial(raw)
            if let internalHandler = internalReplies.removeValue(forKey: replySerial) {
                if let reply = try? DBusMarshalling.decodeMessage(raw) { internalHandler(reply) }
                return DBUS_HANDLER_RESULT_HANDLED
            }
            guard let call = outbound.withLock({ $0.pending.removeValue(forKey: replySerial) }) else {
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            }
            do {
                let reply = try DBusMarshalling.decodeMessage(raw)
                logger.trace("D-Bus receive \(reply.logDescription)")
                if reply.kind == .error {
                    call.finish(.failure(.remote(
                        name: reply.errorName ?? DBusErrorName.failed,
                        message: reply.body.first?.stringValue ?? "")))
                } else {
                    call.finish(.success(reply))
                }
            } catch {
                call.finish(.failure(error))
            }
            return DBUS_HANDLER_RESULT_HANDLED

        case DBusTypeCode.messageTypeSignal:
            return handleSignal(raw)

        case DBusTypeCode.messageTypeMethodCall:
            do {
                let call = try DBusMarshalling.decodeMessage(raw)
                logger.trace("D-Bus receive \(call.logDescription)")
                incomingContinuation.yield(call)
            } catch {
                let header = DBusMarshalling.decodeHeader(raw)
                if !header.noReplyExpected {
                    _ = try? send(header.errorReply(name: DBusErrorName.invalidArgs, message: "\(error)"))
                }
            }
            return DBUS_HANDLER_RESULT_HANDLED

        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }
}
