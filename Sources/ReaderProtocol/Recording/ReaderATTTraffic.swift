/// Finds the reader's traffic in a btsnoop capture: the ATT writes to its RX characteristic
/// and the notifications of its TX characteristic, as the central saw them, as recorded
/// packets that ``RecordingDecoder`` decodes like a text recording.
///
/// ATT over Enhanced ATT channels (which BlueZ opens when both sides support them) is
/// followed as well as the fixed ATT channel. The characteristics' value handles come from
/// the GATT discovery in the capture (ATT
/// Read By Type responses holding their declarations) that a controller *received*: that
/// controller is the central. On a capture of two controllers (a central and a peripheral
/// on one machine) only the central's side is taken, so nothing is counted twice.
public enum ReaderATTTraffic {
    static let transmitUUID = uuid(ReaderGATTProfile.transmitCharacteristic)
    static let receiveUUID = uuid(ReaderGATTProfile.receiveCharacteristic)

    /// The reader's packets, in capture order, located by record number.
    public static func packets(in capture: BTSnoopFile) throws(BTSnoopError) -> [RecordedPacket] {
        var reassembler = L2CAPReassembler()
        var handles: [Int: (transmit: UInt16?, receive: UInt16?)] = [:]
        var packets: [RecordedPacket] = []
        let start = capture.records.first?.timestamp ?? 0
        for record in capture.records {
            let sent: Bool
            switch record.kind {
            case .aclSent: sent = true
            case .aclReceived: sent = false
            default: continue
            }
            guard let pdu = reassembler.attPDU(record, sent: sent), let opcode = pdu.first else { continue }
            let controller = record.controller
            switch opcode {
            case 0x09 where !sent:  // Read By Type Response: characteristic declarations
                for (uuid, valueHandle) in declarations(in: pdu) {
                    if uuid == transmitUUID { handles[controller, default: (nil, nil)].transmit = valueHandle }
                    if uuid == receiveUUID { handles[controller, default: (nil, nil)].receive = valueHandle }
                }
            case 0x12, 0x52:  // Write Request, Write Command: handle, value
                guard sent, pdu.count >= 3, let receive = handles[controller]?.receive,
                    UInt16(pdu[1]) | UInt16(pdu[2]) << 8 == receive
                else { continue }
                packets.append(packet(.hostToReader, Array(pdu[3...]), record))
            case 0x1B, 0x1D:  // Handle Value Notification / Indication: handle, value
                guard !sent, pdu.count >= 3, let transmit = handles[controller]?.transmit,
                    UInt16(pdu[1]) | UInt16(pdu[2]) << 8 == transmit
                else { continue }
                packets.append(packet(.readerToHost, Array(pdu[3...]), record))
            case 0x23:  // Multiple Handle Value Notification (EATT): (handle, length, value)…
                guard !sent, let transmit = handles[controller]?.transmit else { continue }
                for value in values(of: transmit, inMultipleNotification: pdu) {
                    packets.append(packet(.readerToHost, value, record))
                }
            default:
                continue
            }
        }
        guard handles.values.contains(where: { $0.transmit != nil && $0.receive != nil }) else {
            throw .readerCharacteristicsNotDiscovered
        }
        return packets

        func packet(_ direction: LinkDirection, _ value: [UInt8], _ record: BTSnoopFile.Record) -> RecordedPacket {
            // Exact in whole microseconds; the times of a damaged capture can be any Int64s,
            // whose difference overflows, so those are subtracted as doubles.
            let (elapsed, overflow) = record.timestamp.subtractingReportingOverflow(start)
            let microseconds = overflow ? Double(record.timestamp) - Double(start) : Double(elapsed)
            return RecordedPacket(
                direction: direction, bytes: value, timestamp: microseconds / 1_000_000, location: record.number)
        }
    }

    /// The values for `handle` in a Multiple Handle Value Notification:
    /// `23 | (handle, length, value)…`, little-endian; a last value cut short is kept as far
    /// as it goes.
    private static func values(of handle: UInt16, inMultipleNotification pdu: [UInt8]) -> [[UInt8]] {
        var values: [[UInt8]] = []
        var offset = 1
        while offset + 4 <= pdu.count {
            let valueHandle = UInt16(pdu[offset]) | UInt16(pdu[offset + 1]) << 8
            let length = Int(pdu[offset + 2]) | Int(pdu[offset + 3]) << 8
            let end = min(offset + 4 + length, pdu.count)
            if valueHandle == handle { values.append(Array(pdu[(offset + 4)..<end])) }
            offset = end
        }
        return values
    }

    /// (UUID, value handle) of each 128-bit characteristic declaration in a Read By Type
    /// response: `09 | length | (handle, properties, value handle, UUID)…`, little-endian.
    private static func declarations(in pdu: [UInt8]) -> [([UInt8], UInt16)] {
        guard pdu.count >= 2, pdu[1] == 21 else { return [] }
        return stride(from: 2, to: pdu.count - 20, by: 21).map { offset in
            let valueHandle = UInt16(pdu[offset + 3]) | UInt16(pdu[offset + 4]) << 8
            return (Array(pdu[(offset + 5)..<(offset + 21)].reversed()), valueHandle)
        }
    }

    /// A UUID's 16 bytes in written (big-endian) order.
    static func uuid(_ text: String) -> [UInt8] {
        let digits = Array(text.filter(\.isHexDigit))
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16) ?? 0 }
    }
}

/// Joins ACL fragments into L2CAP frames and returns the ATT PDUs among them: those on the
/// fixed ATT channel (CID 4), and those on Enhanced ATT channels (EATT, LE PSM 0x27),
/// which BlueZ opens when both sides support it. EATT channels are credit-based: an SDU
/// starts with its 2-byte length and may span several frames.
private struct L2CAPReassembler {
    private struct Link: Hashable {
        var controller: Int
        var handle: UInt16
    }

    private struct Direction: Hashable {
        var link: Link
        var sent: Bool
    }

    private struct Channel: Hashable {
        var direction: Direction
        var cid: UInt16
    }

    private var partialFrames: [Direction: (length: Int, bytes: [UInt8])] = [:]
    private var partialSDUs: [Channel: (length: Int, bytes: [UInt8])] = [:]
    /// EATT connection requests by signalling identifier, awaiting their responses.
    private var eattRequests: Set<[Int]> = []
    private var eattChannels: [Link: Set<UInt16>] = [:]

    /// The ATT PDU this ACL packet completes, if any.
    mutating func attPDU(_ record: BTSnoopFile.Record, sent: Bool) -> [UInt8]? {
        guard let (direction, cid, payload) = l2capFrame(record, sent: sent) else { return nil }
        switch cid {
        case 0x0004:
            return payload
        case 0x0005:
            signal(payload, link: direction.link)
            return nil
        default:
            guard eattChannels[direction.link]?.contains(cid) == true else { return nil }
            return sdu(payload, channel: Channel(direction: direction, cid: cid))
        }
    }

    private mutating func l2capFrame(_ record: BTSnoopFile.Record, sent: Bool) -> (Direction, UInt16, [UInt8])? {
        let acl = record.bytes
        guard acl.count >= 4 else { return nil }
        let handleAndFlags = UInt16(acl[0]) | UInt16(acl[1]) << 8
        let direction = Direction(link: Link(controller: record.controller, handle: handleAndFlags & 0x0FFF), sent: sent)
        let payload = Array(acl[4...])
        if (handleAndFlags >> 12) & 0x3 == 0x1 {
            guard var pending = partialFrames[direction] else { return nil }
            pending.bytes += payload
            partialFrames[direction] = pending
        } else {
            guard payload.count >= 4 else { return nil }
            partialFrames[direction] = (Int(payload[0]) | Int(payload[1]) << 8, payload)
        }
        guard let pending = partialFrames[direction], pending.bytes.count >= pending.length + 4 else { return nil }
        partialFrames[direction] = nil
        let cid = UInt16(pending.bytes[2]) | UInt16(pending.bytes[3]) << 8
        return (direction, cid, Array(pending.bytes[4..<(pending.length + 4)]))
    }

    /// Learns EATT channels from LE signalling: credit-based connection requests for LE PSM
    /// 0x27 (codes 0x14, 0x17) and their successful responses (0x15, 0x18), whose CIDs
    /// are the channels' endpoints.
    private mutating func signal(_ packet: [UInt8], link: Link) {
        guard packet.count >= 4 else { return }
        let code = packet[0]
        let identifier = Int(packet[1])
        let data = Array(packet[4...])
        func word(_ offset: Int) -> UInt16? {
            offset + 1 < data.count ? UInt16(data[offset]) | UInt16(data[offset + 1]) << 8 : nil
        }
        let key = [link.controller, Int(link.handle), identifier]
        switch code {
        case 0x14 where word(0) == 0x0027:
            eattRequests.insert(key)
            if let source = word(2) { eattChannels[link, default: []].insert(source) }
        case 0x17 where word(0) == 0x0027:
            eattRequests.insert(key)
            for offset in stride(from: 8, to: data.count - 1, by: 2) {
                if let source = word(offset) { eattChannels[link, default: []].insert(source) }
            }
        case 0x15 where eattRequests.contains(key) && word(8) == 0:
            if let destination = word(0) { eattChannels[link, default: []].insert(destination) }
        case 0x18 where eattRequests.contains(key) && word(6) == 0:
            for offset in stride(from: 8, to: data.count - 1, by: 2) {
                if let destination = word(offset), destination != 0 { eattChannels[link, default: []].insert(destination) }
            }
        default:
            return
        }
    }

    /// A credit-based frame: the start of an SDU carries its length first.
    private mutating func sdu(_ frame: [UInt8], channel: Channel) -> [UInt8]? {
        if var pending = partialSDUs[channel] {
            pending.bytes += frame
            partialSDUs[channel] = pending
        } else {
            guard frame.count >= 2 else { return nil }
            partialSDUs[channel] = (Int(frame[0]) | Int(frame[1]) << 8, Array(frame[2...]))
        }
        guard let pending = partialSDUs[channel], pending.bytes.count >= pending.length else { return nil }
        partialSDUs[channel] = nil
        return Array(pending.bytes.prefix(pending.length))
    }
}
