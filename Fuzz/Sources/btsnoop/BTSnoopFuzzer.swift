import FuzzSupport
import ReaderProtocol

/// btsnoop captures (`btmon -w`): the file's records, the reader's ATT traffic in them (L2CAP
/// reassembly, EATT channels, GATT discovery of the reader's characteristics), and that
/// traffic decoded and presented as `readerctl decode` does.
///
/// The records must account for the file: numbered from 1, each no longer than the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBTSnoop(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    withFuzzInput(data, size) { bytes in
        guard let capture = try? BTSnoopFile(bytes: bytes) else { return }
        check(
            capture.records.enumerated().allSatisfy { $0.offset + 1 == $0.element.number },
            "records are not numbered in order")
        check(capture.records.reduce(0) { $0 + 24 + $1.bytes.count } <= bytes.count - 16, "records exceed the file")
        guard let packets = try? ReaderATTTraffic.packets(in: capture) else { return }
        for entry in RecordingDecoder.decode(packets) {
            _ = DecodedRecord(entry)
            _ = DecodedRecord(entry, revealingCardData: true)
        }
    }
}

/// The process's entry point (SwiftPM's name for this module's `main`).
@_cdecl("btsnoop_main")
public func mainBTSnoop(_ argc: CInt, _ argv: CArguments) -> CInt {
    fuzzerMain(argc, argv, test: fuzzBTSnoop) { fixtures in
        try fixtures.captures().flatMap(smallCaptures)
    }
}

/// Captures a few kilobytes long cut from `capture`: its header, the records that hold the
/// discovery of the reader's characteristics, then a window of the ACL records (the rest
/// is HCI events, commands and notes the decoder skips).
private func smallCaptures(_ capture: [UInt8]) -> [[UInt8]] {
    guard capture.count >= 16, capture[8..<16].elementsEqual([0, 0, 0, 1, 0, 0, 0x07, 0xD1]) else { return [] }
    var records: [ArraySlice<UInt8>] = []
    var offset = 16
    while offset + 24 <= capture.count {
        let included = capture[(offset + 4)..<(offset + 8)].reduce(0) { $0 << 8 | Int($1) }
        let end = min(offset + 24 + included, capture.count)
        let opcode = Int(capture[offset + 10]) << 8 | Int(capture[offset + 11])
        if opcode == 4 || opcode == 5 { records.append(capture[offset..<end]) }
        offset = end
    }
    let uuids = [ReaderGATTProfile.transmitCharacteristic, ReaderGATTProfile.receiveCharacteristic].map(littleEndianUUID)
    let discovery = records.filter { record in uuids.contains { record.firstRange(of: $0) != nil } }
    return stride(from: 0, to: records.count, by: 40).map { start in
        Array(capture[0..<16]) + discovery.joined() + records[start..<min(start + 40, records.count)].joined()
    }
}

/// A UUID's bytes as ATT sends them: least significant first.
private func littleEndianUUID(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8.filter { $0 != UInt8(ascii: "-") })
    return stride(from: 0, to: digits.count - 1, by: 2).compactMap { index in
        UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16)
    }.reversed()
}
