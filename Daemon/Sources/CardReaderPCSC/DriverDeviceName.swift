/// What a `reader.conf.d` entry's DEVICENAME says: the reader's name at cardreaderd and the
/// service's socket, as `READER@unix:SOCKET`, e.g.
/// `lane-1@unix:/run/cardreaderd/cardreaderd.sock` (pcscd takes a DEVICENAME with a colon
/// as it is, and any other only if it names a file).
package struct DriverDeviceName: Sendable, Hashable, CustomStringConvertible {
    /// The reader's name at cardreaderd, e.g. `lane-1`.
    package var reader: String
    /// The path of cardreaderd's Unix socket.
    package var socketPath: String

    package static let defaultSocketPath = "/run/cardreaderd/cardreaderd.sock"

    package init(reader: String, socketPath: String = Self.defaultSocketPath) {
        self.reader = reader
        self.socketPath = socketPath
    }

    /// Parses `text`; nil when it names no reader, or no absolute socket path after `@unix:`.
    package init?(_ text: String) {
        // The socket is what follows the last `@unix:`; a reader's name has none.
        let bytes = Array(text.utf8)
        let marker = Array("@unix:".utf8)
        guard
            let at = stride(from: bytes.count - marker.count, through: 0, by: -1).first(where: {
                bytes[$0..<$0 + marker.count].elementsEqual(marker)
            })
        else { return nil }
        reader = String(decoding: bytes[..<at], as: UTF8.self)
        socketPath = String(decoding: bytes[(at + marker.count)...], as: UTF8.self)
        guard socketPath.hasPrefix("/"), !reader.isEmpty, reader.allSatisfy({ !$0.isWhitespace }) else { return nil }
    }

    package var description: String { "\(reader)@unix:\(socketPath)" }
}
