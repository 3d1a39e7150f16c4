import CardReaderCore
import ReaderProtocol

/// The host side of in-process links to emulated readers: an address, and the bond keys
/// it holds, one per reader (what BlueZ keeps in its storage for a real host).
///
/// A host made with ``init(address:)`` holds no bond: a reader from firmware 3.0 refuses
/// it until it pairs. ``init(installedWith:)`` is the host of an installed lane: it holds
/// the bond the reader's ``EmulatedReaderConfiguration/bondedHosts`` lists from the start.
public actor EmulatedHost {
    /// The address of an installed lane's host, which every emulated reader keeps a bond
    /// with unless configured otherwise.
    public static let installedAddress = "in-process host"

    /// How the reader knows this host.
    public nonisolated let address: String
    private var keys: [ObjectIdentifier: UInt64]

    /// A host at `address` that holds no bond.
    public init(address: String) {
        self.address = address
        keys = [:]
    }

    /// The installed lane's host (``installedAddress``), holding the bond `reader` was
    /// configured with (which the reader may have forgotten: `bond-forgotten`). With a
    /// reader before firmware 3.0, or one configured without this host, it holds none.
    public init(installedWith reader: EmulatedReader) {
        address = Self.installedAddress
        let configuration = reader.configuration
        guard configuration.bondedHosts.contains(Self.installedAddress),
            LinkSecurityPolicy.requiresEncryption(firmwareRevision: configuration.info.firmwareVersion)
        else {
            keys = [:]
            return
        }
        let key = Self.installationKey(host: Self.installedAddress, readerSerial: configuration.info.serialNumber ?? "")
        keys = [ObjectIdentifier(reader): key]
    }

    /// Whether this host holds a bond with `reader`.
    public func holdsBond(with reader: EmulatedReader) -> Bool { keys[ObjectIdentifier(reader)] != nil }

    func key(for reader: EmulatedReader) -> UInt64? { keys[ObjectIdentifier(reader)] }

    func keep(_ key: UInt64, for reader: EmulatedReader) { keys[ObjectIdentifier(reader)] = key }

    /// Deletes this host's bond with `reader` (the reader keeps its side), and says whether
    /// there was one.
    @discardableResult
    public func forgetBond(with reader: EmulatedReader) -> Bool {
        keys.removeValue(forKey: ObjectIdentifier(reader)) != nil
    }

    /// The key of a bond made at installation: FNV-1a of the host and the reader's serial,
    /// so both sides compute it without meeting.
    static func installationKey(host: String, readerSerial: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (host + "\u{0}" + readerSerial).utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
