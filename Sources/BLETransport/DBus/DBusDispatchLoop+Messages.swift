internal import CDBus
import Logging

/// Sending, replies matched to calls, deadlines and incoming messages: all on the
/// dispatch thread.
extension DBusDispatchLoop {
    /// Sends a message now; returns its serial.
    @discardableResult
    func sendNow(_ message: DBusMessage) throws(DBusError) -> UInt32 {
        guard let connection, !lostConnection else { throw .disconnected(terminationReason) }
        if !canPassUnixFDs && message.body.contains(where: \.containsUnixFD) {
            throw .marshalling("unix fd passing is not supported on this connection")
        }
        let raw = try DBusMarshalling.makeMessage(message)
        defer { dbus_message_unref(raw) }
        var serial: UInt32 = 0
        guard dbus_connection_send(connection, raw, &serial) != 0 else {
            throw .marshalling("out of memory while queueing a message")
        }
        if logger.logLevel <= .trace {
            var sent = message
            sent.serial = serial
            logger.trace("D-Bus send \(sent.logDescription)")
        }
        return serial
    }

    /// Sends a method call and registers it for its reply (matched by serial in the filter).
    func startCall(_ message: DBusMessage, _ call: DBusPendingCall) {
        guard !call.isFinished else { return }
        do {
            let serial = try sendNow(message)
            pending[serial] = call
        } catch {
            call.finish(.failure(error))
        }
    }

    /// Drops a call that finished elsewhere (cancelled); a late reply is then ignored.
    func forget(_ call: DBusPendingCall) {
        if let serial = pending.first(where: { $0.value === call })?.key {
            pending[serial] = nil
        }
    }

    func expireDeadlines() {
        guard !pending.isEmpty else { return }
        let now = ContinuousClock.now
        for (serial, call) in pending where call.isFinished || call.deadline <= now {
            pending[serial] = nil
            call.finish(.failure(.timeout(call.callDescription)))
        }
    }

    func nextPollTimeout() -> Int32 {
        var earliest: ContinuousClock.Instant?
        for call in pending.values where earliest.map({ call.deadline < $0 }) ?? true { earliest = call.deadline }
        guard let deadline = earliest else { return -1 }
        let remaining = deadline - ContinuousClock.now
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
            guard let call = pending.removeValue(forKey: replySerial) else {
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
                    _ = try? sendNow(header.errorReply(name: DBusErrorName.invalidArgs, message: "\(error)"))
                }
            }
            return DBUS_HANDLER_RESULT_HANDLED

        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }
}
