/// What GET INFO reports (reader documentation §4): a list of `TAG (1) | LEN (1) | VALUE`.
///
/// Tags this SDK does not know are skipped (their tags are listed in `unknownTags`). When
/// a tag appears twice, the first occurrence wins. Trailing NUL padding of text fields is
/// trimmed; other bytes outside printable ASCII are an error.
public struct ReaderInfo: Sendable, Hashable {
    /// What the reader can do (tag `05`).
    public struct Capabilities: OptionSet, Sendable, Hashable {
        /// The tag `05` bitmask as the reader sends it; bits 5–7 are kept as they came.
        public let rawValue: UInt8
        /// The capabilities of a tag `05` bitmask.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Bit 0: a magnetic stripe head.
        public static let magneticStripe = Capabilities(rawValue: 1 << 0)
        /// Bit 1: a contact chip slot.
        public static let contactChip = Capabilities(rawValue: 1 << 1)
        /// Bit 2: a contactless antenna.
        public static let contactless = Capabilities(rawValue: 1 << 2)
        /// Bit 3: a PIN pad.
        public static let pinPad = Capabilities(rawValue: 1 << 3)
        /// Bit 4: a display, which shows the passkey when the reader pairs (§1.1: Passkey
        /// Entry rather than Just Works).
        public static let display = Capabilities(rawValue: 1 << 4)

        /// Names of the capabilities set, in bit order.
        public var names: [String] {
            [(Self.magneticStripe, "magnetic-stripe"), (.contactChip, "contact-chip"),
             (.contactless, "contactless"), (.pinPad, "pin-pad"), (.display, "display")]
                .filter { contains($0.0) }.map(\.1)
        }
    }

    /// Tag `01`, e.g. `VPOS3356`.
    public var model: String?
    /// Tag `02`.
    public var serialNumber: String?
    /// Tag `03`, e.g. `2.4.1`.
    public var firmwareVersion: String?
    /// Tag `04`, percent.
    public var batteryPercent: UInt8?
    /// Tag `05`.
    public var capabilities: Capabilities?
    /// Tag `06`.
    public var bootloaderVersion: String?
    /// Tags present in the response that this SDK does not know, in order.
    public var unknownTags: [UInt8] = []

    /// Fields as a GET INFO response would report them; a field left nil was not reported.
    public init(
        model: String? = nil, serialNumber: String? = nil, firmwareVersion: String? = nil,
        batteryPercent: UInt8? = nil, capabilities: Capabilities? = nil, bootloaderVersion: String? = nil
    ) {
        self.model = model
        self.serialNumber = serialNumber
        self.firmwareVersion = firmwareVersion
        self.batteryPercent = batteryPercent
        self.capabilities = capabilities
        self.bootloaderVersion = bootloaderVersion
    }

    /// Parses the TLV list that follows the status byte.
    public init(fields bytes: some Collection<UInt8>) throws(MessageDecodingError) {
        let bytes = Array(bytes)
        var offset = 0
        var seen = Set<UInt8>()
        while offset < bytes.count {
            guard offset + 2 <= bytes.count else { throw .truncatedInfoField(offset: offset) }
            let tag = bytes[offset]
            let length = Int(bytes[offset + 1])
            let valueStart = offset + 2
            guard valueStart + length <= bytes.count else { throw .truncatedInfoField(offset: offset) }
            let value = Array(bytes[valueStart..<(valueStart + length)])
            offset = valueStart + length
            guard seen.insert(tag).inserted else { continue }
            switch tag {
            case 0x01: model = try Self.text(value, tag: tag)
            case 0x02: serialNumber = try Self.text(value, tag: tag)
            case 0x03: firmwareVersion = try Self.text(value, tag: tag)
            case 0x04: batteryPercent = try Self.byte(value, tag: tag)
            case 0x05: capabilities = Capabilities(rawValue: try Self.byte(value, tag: tag))
            case 0x06: bootloaderVersion = try Self.text(value, tag: tag)
            default: unknownTags.append(tag)
            }
        }
    }

    /// The TLV list, in tag order (the emulated reader sends this).
    public var fields: [UInt8] {
        var bytes: [UInt8] = []
        func append(_ tag: UInt8, _ value: [UInt8]) {
            bytes += [tag, UInt8(truncatingIfNeeded: min(value.count, 255))] + value.prefix(255)
        }
        if let model { append(0x01, Array(model.utf8)) }
        if let serialNumber { append(0x02, Array(serialNumber.utf8)) }
        if let firmwareVersion { append(0x03, Array(firmwareVersion.utf8)) }
        if let batteryPercent { append(0x04, [batteryPercent]) }
        if let capabilities { append(0x05, [capabilities.rawValue]) }
        if let bootloaderVersion { append(0x06, Array(bootloaderVersion.utf8)) }
        return bytes
    }

    private static func text(_ value: [UInt8], tag: UInt8) throws(MessageDecodingError) -> String {
        var trimmed = value[...]
        while trimmed.last == 0 { trimmed = trimmed.dropLast() }
        guard trimmed.allSatisfy({ (0x20...0x7E).contains($0) }) else { throw .invalidInfoField(tag: tag) }
        return String(decoding: trimmed, as: UTF8.self)
    }

    private static func byte(_ value: [UInt8], tag: UInt8) throws(MessageDecodingError) -> UInt8 {
        guard value.count == 1 else { throw .invalidInfoField(tag: tag) }
        return value[0]
    }
}

extension ReaderInfo.Capabilities: CustomStringConvertible {
    /// The capabilities by name, e.g. `magnetic-stripe, contact-chip`; `none` when empty.
    public var description: String { names.isEmpty ? "none" : names.joined(separator: ", ") }
}

extension ReaderInfo: CustomStringConvertible {
    /// What GET INFO said, e.g. `VPOS3356, serial EMU00001, firmware 2.4.1 (bootloader 1.0.3),
    /// battery 85 %, magnetic-stripe, contact-chip`; fields the reader left out are left out.
    public var description: String {
        var parts = [model ?? "unknown model"]
        if let serialNumber { parts.append("serial \(serialNumber)") }
        if let firmwareVersion {
            parts.append("firmware \(firmwareVersion)" + (bootloaderVersion.map { " (bootloader \($0))" } ?? ""))
        }
        if let batteryPercent { parts.append("battery \(batteryPercent) %") }
        if let capabilities { parts.append(capabilities.description) }
        if !unknownTags.isEmpty { parts.append("\(unknownTags.count) unknown tags") }
        return parts.joined(separator: ", ")
    }
}
