/// libdbus could not be loaded, so nothing that talks to D-Bus (BlueZ, readers over
/// Bluetooth, the emulated reader as a BLE peripheral) can work. Everything else can.
///
/// Its description is the sentence a support engineer needs: which library, why, and the
/// Debian package that provides it.
public struct DBusLibraryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the library is unusable.
    public enum Reason: Sendable, Hashable {
        /// The dynamic loader could not open it: not installed, not found, or not a
        /// library for this machine.
        case notLoadable
        /// It opened but lacks a function the SDK calls (too old, or not libdbus).
        case missingFunction(String)
    }

    /// Where the library's name came from.
    public enum Source: Sendable, Hashable {
        /// The default, `libdbus-1.so.3`.
        case `default`
        /// The `CARDREADERKIT_LIBDBUS` environment variable.
        case environment
    }

    /// The Debian (and Ubuntu) package that installs `libdbus-1.so.3`.
    public static let debianPackage = "libdbus-1-3"

    /// The file the loader was asked to open: `libdbus-1.so.3`, or what
    /// `CARDREADERKIT_LIBDBUS` named.
    public var library: String
    public var source: Source
    public var reason: Reason
    /// The dynamic loader's own words (`dlerror()`).
    public var detail: String

    public init(library: String, source: Source, reason: Reason, detail: String) {
        self.library = library
        self.source = source
        self.reason = reason
        self.detail = detail
    }

    /// A stable identifier: `dbus-library-unavailable`.
    public var code: String { "dbus-library-unavailable" }

    public var description: String {
        let named = source == .environment ? "\(library) (named by \(DBusLibrary.environmentVariable))" : library
        let problem =
            switch reason {
            case .notLoadable: "could not be loaded"
            case .missingFunction(let function): "lacks \(function)"
            }
        let loader = detail.isEmpty ? "" : " (\(detail))"
        return "Bluetooth needs the D-Bus library \(named), which \(problem)\(loader); "
            + "install Debian's \(Self.debianPackage) package (apt-get install \(Self.debianPackage))"
    }
}
