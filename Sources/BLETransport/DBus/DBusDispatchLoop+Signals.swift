internal import CDBus
import Logging

/// Signal subscriptions and the owners of the well-known names they follow: all on the
/// dispatch thread.
extension DBusDispatchLoop {
    var subscriptionCount: Int { subscriptions.count }

    func addSubscription(_ id: UInt64, _ subscription: Subscription) {
        guard connection != nil, !lostConnection else {
            subscription.end()
            return
        }
        subscriptions[id] = subscription
        if let name = subscription.rule.wellKnownSender { trackName(name) }
    }

    /// Starts following the owner of `name`: NameOwnerChanged match first, then
    /// GetNameOwner; the daemon answers in order, so the owner is known before any signal
    /// matching the subscriber's own (later) AddMatch arrives.
    private func trackName(_ name: String) {
        trackedNames[name, default: 0] += 1
        guard trackedNames[name] == 1 else { return }
        var addMatch = DBusMessage.methodCall(
            destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
            member: "AddMatch", body: [.string(DBusMatchRule.nameOwnerChanged(name: name).description)])
        addMatch.noReplyExpected = true
        let getOwner = DBusMessage.methodCall(
            destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
            member: "GetNameOwner", body: [.string(name)])
        do {
            try send(addMatch)
            let serial = try send(getOwner)
            internalReplies[serial] = { [unowned self] reply in
                guard self.trackedNames[name] != nil else { return }
                if reply.kind == .methodReturn, let owner = reply.body.first?.stringValue {
                    self.nameOwners[name] = owner
                } else {
                    self.nameOwners[name] = nil
                }
            }
        } catch {
            logger.debug("D-Bus cannot track the owner of \(name): \(error)")
        }
    }

    private func untrackName(_ name: String) {
        guard let count = trackedNames[name] else { return }
        if count > 1 {
            trackedNames[name] = count - 1
            return
        }
        trackedNames[name] = nil
        nameOwners[name] = nil
        guard connection != nil, !lostConnection else { return }
        var removeMatch = DBusMessage.methodCall(
            destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
            member: "RemoveMatch", body: [.string(DBusMatchRule.nameOwnerChanged(name: name).description)])
        removeMatch.noReplyExpected = true
        _ = try? send(removeMatch)
    }

    /// Removes a subscription and, if `removeMatch`, drops its rule at the daemon
    /// (fire-and-forget RemoveMatch).
    func removeSubscription(_ id: UInt64, removeMatch: Bool) {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        subscription.end()
        if let name = subscription.rule.wellKnownSender { untrackName(name) }
        guard removeMatch, connection != nil, !lostConnection else { return }
        var message = DBusMessage.methodCall(
            destination: DBusStandard.busName, path: DBusStandard.busPath, interface: DBusStandard.busInterface,
            member: "RemoveMatch", body: [.string(subscription.rule.description)])
        message.noReplyExpected = true
        do {
            try send(message)
        } catch {
            logger.debug("RemoveMatch failed: \(error)")
        }
    }

    /// A signal: the bus going away, a tracked name changing owner, else delivered to every
    /// subscription whose rule matches, in subscription order.
    func handleSignal(_ raw: OpaquePointer) -> DBusHandlerResult {
        let header = DBusMarshalling.decodeHeader(raw)
        if header.path == DBusStandard.localPath, header.interface == DBusStandard.localInterface,
            header.member == "Disconnected"
        {
            lostConnection = true
            return DBUS_HANDLER_RESULT_HANDLED
        }
        guard !subscriptions.isEmpty else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let signal: DBusMessage
        do {
            signal = try DBusMarshalling.decodeMessage(raw)
        } catch {
            logger.debug("D-Bus dropping undecodable signal \(header.logDescription): \(error)")
            return DBUS_HANDLER_RESULT_HANDLED
        }
        logger.trace("D-Bus receive \(signal.logDescription)")
        if signal.sender == DBusStandard.busName, signal.interface == DBusStandard.busInterface,
            signal.member == "NameOwnerChanged", signal.body.count == 3,
            case .string(let name) = signal.body[0], trackedNames[name] != nil
        {
            let newOwner = signal.body[2].stringValue ?? ""
            nameOwners[name] = newOwner.isEmpty ? nil : newOwner
        }
        for id in subscriptions.keys.sorted() {
            guard let subscription = subscriptions[id], subscription.rule.matches(signal, owners: nameOwners)
            else { continue }
            subscription.deliver(signal)
        }
        return DBUS_HANDLER_RESULT_HANDLED
    }
}
