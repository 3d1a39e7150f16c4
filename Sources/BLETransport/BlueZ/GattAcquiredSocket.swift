#if canImport(Glibc)
import Glibc
import Locking
#elseif canImport(Musl)
import Musl
#endif

/// A `SOCK_SEQPACKET` socket bluetoothd handed over with `AcquireNotify` or
/// `AcquireWrite`: one value per datagram, at most ``mtu`` − 3 bytes. bluetoothd hangs it
/// up when the device disconnects.
///
/// A notification socket is read on the D-Bus dispatch thread (``startReading(deliver:hangUp:)``),
/// so its values and the bus's signals keep one order. Writes run on the caller's thread
/// and never block: a full socket waits for `POLLOUT` on the dispatch thread. The
/// descriptor is used and closed under one lock, so a closed number reused elsewhere in the
/// process is never written to.
final class GattAcquiredSocket: Sendable {
    /// The ATT MTU bluetoothd reported with the socket.
    let mtu: Int
    /// The descriptor, and whether it may still be used: ``close()`` clears `open` at once
    /// and closes the descriptor later, on the dispatch thread.
    private let descriptor: Locked<(fd: Int32, open: Bool)>
    private let connection: DBusConnection

    init(taking fd: Int32, mtu: Int, connection: DBusConnection) {
        descriptor = Locked((fd, true))
        self.mtu = mtu
        self.connection = connection
    }

    deinit {
        close()
    }

    /// The largest value one datagram carries.
    var maximumValueLength: Int { GattPayload.maximumLength(mtu: mtu) }

    /// Hands each datagram to `deliver` on the dispatch thread; `hangUp` runs once if
    /// bluetoothd closes the socket or the bus connection ends (not after ``close()``).
    func startReading(deliver: @escaping @Sendable ([UInt8]) -> Void, hangUp: @escaping @Sendable () -> Void) {
        guard let fd = descriptor.withLock({ $0.open ? $0.fd : nil }) else { return }
        connection.watch(fd, events: Int16(POLLIN)) { revents in
            if revents & Int16(POLLNVAL) != 0 { return false }
            let open = Self.drain(fd, deliver: deliver)
            if !open || revents & Int16(POLLHUP | POLLERR) != 0 {
                hangUp()
                return false
            }
            return true
        }
    }

    /// Reads every waiting datagram; false when the peer has closed the socket.
    private static func drain(_ fd: Int32, deliver: ([UInt8]) -> Void) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
            while true {
                let count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0 {
                    deliver(Array(buffer[0..<count]))
                } else if count == 0 {
                    return false
                } else if errno == EINTR {
                    continue
                } else {
                    return errno == EAGAIN || errno == EWOULDBLOCK
                }
            }
        }
    }

    /// Sends one value; nil when sent, else the `errno` that stopped it (`ECANCELED` when
    /// the task was cancelled while the socket was full).
    func send(_ value: [UInt8]) async -> Int32? {
        while true {
            let (result, error) = descriptor.withLock { descriptor -> (Int, Int32) in
                guard descriptor.open else { return (-1, EBADF) }
                let sent = value.withUnsafeBytes {
                    sendDatagram(descriptor.fd, $0.baseAddress, $0.count)
                }
                return (sent, sent < 0 ? errno : 0)
            }
            if result >= 0 { return nil }
            switch error {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK:
                if Task.isCancelled { return ECANCELED }
                guard let fd = descriptor.withLock({ $0.open ? $0.fd : nil }) else { return EBADF }
                await connection.waitUntilWritable(fd)
            default: return error
            }
        }
    }

    /// Stops reading and closes the socket (on the dispatch thread, after its watch is
    /// gone). Idempotent.
    func close() {
        let fd = descriptor.withLock { descriptor -> Int32? in
            defer { descriptor.open = false }
            return descriptor.open ? descriptor.fd : nil
        }
        guard let fd else { return }
        connection.unwatch(fd) { closeDescriptor(fd) }
    }
}

private func sendDatagram(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    send(fd, bytes, count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
}

private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
