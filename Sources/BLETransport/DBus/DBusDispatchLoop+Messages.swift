internal import CDBus
import Locking
import Logging
@_spi(Timers) import Timing

/// Sending, replies matched to calls, deadlines and incoming messages: on the dispatch
/// thread, except ``sendCall(_:_:)``, which runs on the caller's, and the deadline timer.
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
        let sent = outbound.withLock { outbound -> (serial: UInt32, wake: Bool, timer: Duration?)? in
            guard let connection = outbound.connection else { return nil }
            var serial: UInt32 = 0
            // Writes at once when the socket takes it; what it does not take stays queued.
            guard dbus_connection_send(connection, raw, &serial) != 0 else { return nil }
            let wake = dbus_connection_has_messages_to_send(connection) != 0
            var timer: Duration?
            if let call {
                outbound.pending[serial] = call
                timer = outbound.deadlines.schedule(serial, at: call.deadline)
            }
            return (serial, wake, timer)
        }
        guard let sent else { throw .disconnected(terminationReason) }
        if sent.wake { wakeUp() }
        if let timer = sent.timer { startDeadlineTimer(until: timer) }
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
                outbound.deadlines.cancel(serial)
            }
        }
    }

    /// Starts a timer that fails the calls whose deadline has passed when it wakes, then
    /// sleeps until the next deadline unless another timer wakes in time for it (the
    /// ``Timeline`` decides). Calls mostly share a timeout, so each deadline comes after
    /// the timer's wake-up and one timer serves a busy connection; an idle connection has
    /// none. The timer wakes on the dispatch thread, not on the cooperative pool, so a
    /// deadline is kept however busy the pool is.
    private func startDeadlineTimer(until wakeUp: Duration) {
        clock.startTimer(until: wakeUp, on: self) { [weak self] woke in self?.expireDeadlines(timerWoke: woke) }
    }

    /// A deadline timer woke: fails every call now due with ``DBusError/timeout(_:)``, and
    /// says when the timer wakes next, if it does.
    private func expireDeadlines(timerWoke wakeUp: Duration) -> Duration? {
        let now = clock.elapsed()
        let (expired, next) = outbound.withLock { outbound -> ([DBusPendingCall], Duration?) in
            var expired: [DBusPendingCall] = []
            while let serial = outbound.deadlines.popDue(at: now) {
                if let call = outbound.pending.removeValue(forKey: serial) { expired.append(call) }
            }
            return (expired, outbound.deadlines.sleeperWoke(from: wakeUp))
        }
        for call in expired { call.finish(.failure(.timeout(call.callDescription))) }
        return next
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
            let answered = outbound.withLock { outbound -> DBusPendingCall? in
                guard let call = outbound.pending.removeValue(forKey: replySerial) else { return nil }
                outbound.deadlines.cancel(replySerial)
                return call
            }
            guard let call = answered else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
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
