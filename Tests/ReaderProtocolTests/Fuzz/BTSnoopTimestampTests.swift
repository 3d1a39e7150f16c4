import Testing
import ReaderProtocol

/// Found by the `btsnoop` fuzz target: a capture whose record times are far apart (any
/// 64-bit values, as a damaged file holds) made the time since the first record overflow
/// and trapped `readerctl decode`. Such times now come out as doubles.
@Suite struct BTSnoopTimestampTests {
    /// A monitor-format (2001) capture on controller 0: the GATT discovery of the reader's
    /// characteristics at `discoveryTime`, then a notification of its TX value at `notificationTime`.
    private func capture(discoveryTime: Int64, notificationTime: Int64, value: [UInt8]) -> [UInt8] {
        /// A 128-bit UUID as ATT carries it: little-endian.
        func uuid(_ text: String) -> [UInt8] { hex(text.filter { $0 != "-" }).reversed() }
        func acl(_ pdu: [UInt8]) -> [UInt8] {
            let l2cap = [UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), 0x04, 0x00] + pdu
            return [0x01, 0x20, UInt8(l2cap.count & 0xFF), UInt8(l2cap.count >> 8)] + l2cap
        }
        func record(_ data: [UInt8], time: Int64) -> [UInt8] {
            let length = bigEndian(UInt32(data.count))
            return length + length + bigEndian(5) + bigEndian(0) + bigEndian(UInt32(truncatingIfNeeded: UInt64(bitPattern: time) >> 32))
                + bigEndian(UInt32(truncatingIfNeeded: UInt64(bitPattern: time))) + data
        }
        // Read By Type Response: (handle, properties, value handle, UUID) per characteristic.
        let declarations: [UInt8] = [0x09, 21]
            + [0x11, 0x00, 0x10, 0x12, 0x00] + uuid(ReaderGATTProfile.transmitCharacteristic)
            + [0x14, 0x00, 0x04, 0x15, 0x00] + uuid(ReaderGATTProfile.receiveCharacteristic)
        let notification: [UInt8] = [0x1B, 0x12, 0x00] + value
        return Array("btsnoop".utf8) + [0] + bigEndian(1) + bigEndian(2001)
            + record(acl(declarations), time: discoveryTime) + record(acl(notification), time: notificationTime)
    }

    @Test(arguments: [(Int64.min, Int64.max), (Int64.max, Int64.min), (0, Int64.min)] as [(Int64, Int64)])
    func recordTimesAsFarApartAsCanBeDoNotTrap(discovery: Int64, notification: Int64) throws {
        let value: [UInt8] = [0x02, 0xC0, 0x01, 0x00]
        let file = try BTSnoopFile(bytes: capture(discoveryTime: discovery, notificationTime: notification, value: value))
        let packets = try ReaderATTTraffic.packets(in: file)
        #expect(packets.map(\.bytes) == [value])
        #expect(packets.map(\.direction) == [.readerToHost])
        let seconds = try #require(packets.first?.timestamp)
        #expect(seconds.isFinite)
        #expect(seconds == (Double(notification) - Double(discovery)) / 1_000_000)
    }

    @Test func nearbyTimesStayExactMicroseconds() throws {
        // Real btsnoop times count microseconds since year 0: beyond a double's exact integers.
        let start: Int64 = 0x00E2_4B5F_3C1D_2A07
        let file = try BTSnoopFile(bytes: capture(discoveryTime: start, notificationTime: start + 1_234_567, value: [0x02]))
        #expect(try ReaderATTTraffic.packets(in: file).first?.timestamp == 1.234567)
    }
}

private func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}
