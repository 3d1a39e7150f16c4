import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Who is on the other end of a Unix-socket connection, as the kernel recorded it when the
/// peer connected (`SO_PEERCRED`): nothing the peer sends can change it.
struct PeerCredentials: Sendable, Hashable {
    /// Linux's `struct ucred`, field for field (Glibc declares it only for `_GNU_SOURCE`).
    private struct Ucred {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    var processID: Int32
    var userID: UInt32
    var groupID: UInt32

    /// The credentials of `channel`'s peer; fails on a channel that is not a Unix socket.
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        let future: EventLoopFuture<Ucred> = provider.unsafeGetSocketOption(
            level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        return future.map { PeerCredentials(processID: $0.pid, userID: $0.uid, groupID: $0.gid) }
    }

    /// The user's name in the password database, else the uid as digits.
    var userName: String { Self.userName(of: userID) }

    static func userName(of uid: UInt32) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            return String(uid)
        }
        return String(cString: name)
    }
}
