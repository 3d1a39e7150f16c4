internal import CDBus

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// libdbus, opened at run time.
///
/// Nothing in the package links libdbus: building needs Swift alone, and a program that
/// never opens a D-Bus connection (the emulated reader, decoding recordings, parsing)
/// runs on a machine without it. The first D-Bus connection opens `libdbus-1.so.3` and
/// resolves every function BLETransport calls before calling any; if that fails, every
/// entry point throws ``DBusLibraryError``.
public enum DBusLibrary {
    /// The soname of libdbus's stable ABI, as every Linux system with D-Bus has it.
    public static let soname = "libdbus-1.so.3"

    /// An environment variable naming another file to open instead (a soname or a path),
    /// for systems that keep libdbus outside the loader's search path.
    public static let environmentVariable = "CARDREADERKIT_LIBDBUS"

    /// The outcome of the one load of the process (thread-safe: Swift initializes a
    /// static once, and every later read sees the table it filled).
    private static let processWide: Result<Void, DBusLibraryError> = {
        if let configured = getenv(environmentVariable).map({ String(cString: $0) }), !configured.isEmpty {
            return load(configured, source: .environment)
        }
        return load(soname, source: .default)
    }()

    /// Makes sure libdbus is loaded (loading it the first time): every D-Bus entry point
    /// calls this first; a diagnosis may call it alone.
    public static func require() throws(DBusLibraryError) {
        try processWide.get()
    }

    /// Opens `library` and resolves every function; the first success serves the
    /// process. A failure leaves the process's state as it was.
    static func load(_ library: String, source: DBusLibraryError.Source = .default) -> Result<Void, DBusLibraryError> {
        let capacity = 512
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
            var missingSymbol: UnsafePointer<CChar>?
            let result = cardreaderkit_libdbus_load(library, buffer.baseAddress, capacity, &missingSymbol)
            let detail = buffer.baseAddress.map { String(cString: $0) } ?? ""
            switch result {
            case CARDREADERKIT_LIBDBUS_LOADED:
                // Method calls are written from the calling thread (see
                // DBusDispatchLoop.sendCall), so libdbus must lock its connections.
                guard dbus_threads_init_default() != 0 else {
                    return .failure(DBusLibraryError(
                        library: library, source: source, reason: .notLoadable, detail: "dbus_threads_init_default failed"))
                }
                return .success(())
            case CARDREADERKIT_LIBDBUS_SYMBOL_MISSING:
                let symbol = missingSymbol.map { String(cString: $0) } ?? "?"
                return .failure(DBusLibraryError(
                    library: library, source: source, reason: .missingFunction(symbol), detail: detail))
            default:
                return .failure(DBusLibraryError(library: library, source: source, reason: .notLoadable, detail: detail))
            }
        }
    }
}
