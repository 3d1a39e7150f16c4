#if canImport(Glibc)
import Glibc
import Locking
#elseif canImport(Musl)
import Musl
#endif

/// A unix file descriptor carried by a D-Bus message (type `h`).
///
/// The object owns its descriptor and closes it when it is deallocated, unless the
/// descriptor was taken with ``take()``. Sending a message duplicates the descriptor
/// (libdbus does), so the object stays usable after sending. Descriptors received in a
/// message are owned by the decoded value. Equality is identity.
public final class DBusUnixFileDescriptor: Sendable, Hashable, CustomStringConvertible {
    private let descriptor: Locked<Int32>

    /// Takes ownership of `fd`.
    public init(owning fd: Int32) {
        descriptor = Locked(fd)
    }

    /// Duplicates `fd` (close-on-exec); the caller keeps ownership of `fd`.
    public convenience init(duplicating fd: Int32) throws(DBusError) {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw .marshalling("cannot duplicate fd \(fd): errno \(errno)") }
        self.init(owning: copy)
    }

    deinit {
        let fd = descriptor.withLock { $0 }
        if fd >= 0 { _ = close(fd) }
    }

    /// The descriptor (still owned by this object), or nil after ``take()``.
    public var fileDescriptor: Int32? {
        let fd = descriptor.withLock { $0 }
        return fd >= 0 ? fd : nil
    }

    var isOpen: Bool { fileDescriptor != nil }

    /// Hands ownership of the descriptor to the caller, who must close it.
    public func take() -> Int32? {
        let fd = descriptor.withLock { value -> Int32 in
            let fd = value
            value = -1
            return fd
        }
        return fd >= 0 ? fd : nil
    }

    public static func == (lhs: DBusUnixFileDescriptor, rhs: DBusUnixFileDescriptor) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String { fileDescriptor.map { "\($0)" } ?? "taken" }
}
