import CardReaderKit
import Foundation
import Testing

/// The bond store's file: what `readerctl bonds` reads for when and how each reader was
/// paired. The ISO 8601 text of 1 800 000 000 s after the epoch is Python's
/// `datetime.fromtimestamp(1800000000, timezone.utc).isoformat()`: 2027-01-15T08:00:00.
@Suite struct ReaderBondStoreTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bonds-\(UUID().uuidString)")
    var store: ReaderBondStore { ReaderBondStore(file: directory.appendingPathComponent("state/bonds.json")) }

    @Test func bondsAreKeptOnePerReaderAndAdapterAndForgotten() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try store.bonds().isEmpty)
        let first = ReaderBond(
            address: "00:aa:01:00:00:00", name: "VPOS3356-0001", adapter: "hci1",
            pairedAt: Date(timeIntervalSince1970: 1_800_000_000), method: .justWorks)
        try store.record(first)
        let text = try String(contentsOf: store.file, encoding: .utf8)
        #expect(text.contains("\"pairedAt\" : \"2027-01-15T08:00:00Z\""))
        #expect(text.contains("\"address\" : \"00:AA:01:00:00:00\""))

        var again = first
        again.pairedAt = Date(timeIntervalSince1970: 1_800_000_060)
        again.method = "Passkey Entry"
        try store.record(again)
        try store.record(ReaderBond(address: "00:AA:01:00:00:00", name: nil, adapter: "hci2", pairedAt: .now, method: .justWorks))
        #expect(try store.bonds().count == 2)
        #expect(try store.bonds().first == again)

        #expect(try store.remove(address: "00:aa:01:00:00:00", adapter: "hci1"))
        #expect(try !store.remove(address: "00:AA:01:00:00:00", adapter: "hci1"))
        #expect(try store.bonds().map(\.adapter) == ["hci2"])
    }

    @Test func aDamagedOrUnwritableFileIsATypedError() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: store.file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("not json".utf8).write(to: store.file)
        #expect(throws: ReaderBondStoreError.self) { try store.bonds() }
        do {
            _ = try store.bonds()
        } catch {
            #expect(error.code == .unreadable)
            #expect(error.description.contains(store.file.path))
        }
        // A directory where the file should be cannot be written over.
        let blocked = ReaderBondStore(file: directory.appendingPathComponent("state"))
        do {
            try blocked.record(ReaderBond(address: "00:AA:01:00:00:00", name: nil, adapter: "hci1", pairedAt: .now, method: .justWorks))
            Issue.record("wrote over a directory")
        } catch {
            #expect([.unreadable, .unwritable].contains(error.code))
        }
    }
}
