public import FoundationEssentials

/// A small JSON file of the bonds this host made through CardReaderKit (``ReaderBond``):
/// ``BlueZReaderConnector`` adds one when it pairs and removes it when it unpairs. It holds
/// no key and no card data; BlueZ remains the truth about which bonds exist.
///
/// By default it lives in the user's state directory, `$XDG_STATE_HOME/cardreaderkit/bonds.json`
/// (`~/.local/state/cardreaderkit/bonds.json`); a backend names another file with
/// ``init(file:)``. Each change rewrites the file atomically.
public struct ReaderBondStore: Sendable, Hashable {
    /// The JSON file.
    public let file: URL

    /// A store in `file`.
    public init(file: URL) {
        self.file = file
    }

    /// The store in the user's state directory; nil when neither `XDG_STATE_HOME` nor
    /// `HOME` is set.
    public static var userDefault: ReaderBondStore? {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = URL(fileURLWithPath: state)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = URL(fileURLWithPath: home).appendingPathComponent(".local/state")
        } else {
            return nil
        }
        return ReaderBondStore(file: base.appendingPathComponent("cardreaderkit/bonds.json"))
    }

    /// Every bond kept, oldest first; none when the file does not exist yet.
    public func bonds() throws(ReaderBondStoreError) -> [ReaderBond] {
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode([ReaderBond].self, from: Data(contentsOf: file))
        } catch {
            throw ReaderBondStoreError(.unreadable, file: file, detail: "\(error)")
        }
    }

    /// Keeps `bond`, in place of an earlier one with the same address on the same adapter.
    public func record(_ bond: ReaderBond) throws(ReaderBondStoreError) {
        var kept = try bonds().filter { !($0.address == bond.address && $0.adapter == bond.adapter) }
        kept.append(bond)
        try write(kept)
    }

    /// Forgets the bond with `address` on `adapter`; says whether there was one.
    @discardableResult
    public func remove(address: String, adapter: String) throws(ReaderBondStoreError) -> Bool {
        let all = try bonds()
        let kept = all.filter { !($0.address == address.uppercased() && $0.adapter == adapter) }
        guard kept.count != all.count else { return false }
        try write(kept)
        return true
    }

    private func write(_ bonds: [ReaderBond]) throws(ReaderBondStoreError) {
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(bonds).write(to: file, options: .atomic)
        } catch {
            throw ReaderBondStoreError(.unwritable, file: file, detail: "\(error)")
        }
    }
}

/// Why the bond store could not be read or written: the file and what the system said.
public struct ReaderBondStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed.
    public var code: Code
    /// The store's file.
    public var file: URL
    /// What the system said.
    public var detail: String

    /// A failure with `code` on `file`.
    public init(_ code: Code, file: URL, detail: String) {
        self.code = code
        self.file = file
        self.detail = detail
    }

    /// `bond-store-unreadable: /home/…/bonds.json: …`.
    public var description: String { "\(code): \(file.path): \(detail)" }

    /// What failed, as a stable identifier.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The file exists but cannot be read, or is not a list of bonds.
        public static let unreadable = Self(rawValue: "bond-store-unreadable")
        /// The file or its directory cannot be written.
        public static let unwritable = Self(rawValue: "bond-store-unwritable")
    }
}
