import FoundationEssentials
import ReaderProtocol
import Testing

/// The golden-file convention of `readerctl decode --expect` and the golden tests
/// (``GoldenRecords``), on records written here by hand.
struct GoldenRecordsTests {
    let swipe = DecodedRecord(
        type: "frame", direction: "reader-to-host", line: 5, timestamp: 0.03, offset: 0, length: 101, kind: "response",
        code: "C1 07", name: "READ MAGNETIC STRIPE", status: "00", statusName: "success",
        fields: ["track2.pan": "411111******1111", "track2.expiry": "2512"], detail: "a swipe")

    @Test func equalRecordsMatchWhateverTheirProseAndSource() {
        var actual = swipe
        actual.detail = "other words"
        actual.source = "Fixtures/packets/swipe-mtu23.txt"
        #expect(GoldenRecords.differences(actual: [actual], expected: [swipe]) == [])
    }

    @Test func aDifferentCodeOrFieldIsNamed() {
        var actual = swipe
        actual.code = "C1 08"
        actual.fields?["track2.expiry"] = "2612"
        let differences = GoldenRecords.differences(actual: [actual], expected: [swipe])
        #expect(differences.map(\.property) == ["code", "fields.track2.expiry"])
        #expect(differences.first?.description == "record 1: code is C1 08, expected C1 07")
    }

    /// A golden line written when every field was a string (`"timeoutSeconds": "30"`) still
    /// matches the number a decoder now gives; another number does not.
    @Test func aNumberMatchesTheSameNumberWrittenAsText() throws {
        let decoded = DecodedRecord(
            type: "frame", direction: "host-to-reader", line: 3, offset: 0, length: 9, kind: "command", code: "C1 07",
            fields: ["timeoutSeconds": 30])
        let older = try JSONDecoder().decode(
            DecodedRecord.self,
            from: Data(#"{"type":"frame","direction":"host-to-reader","line":3,"offset":0,"length":9,"fields":{"timeoutSeconds":"30"}}"#.utf8))
        #expect(older.fields?["timeoutSeconds"] == .text("30"))
        #expect(GoldenRecords.differences(actual: [decoded], expected: [older]) == [])
        var other = older
        other.fields?["timeoutSeconds"] = 31
        #expect(GoldenRecords.differences(actual: [decoded], expected: [other]).map(\.property) == ["fields.timeoutSeconds"])
    }

    /// `*` takes any value but not none; a field the expected record does not list is a
    /// difference; without `fields`, the expected record does not compare them.
    @Test func wildcardsAndMissingFields() {
        var wildcard = swipe
        wildcard.fields?["track2.expiry"] = "*"
        #expect(GoldenRecords.differences(actual: [swipe], expected: [wildcard]) == [])
        var missing = swipe
        missing.fields?["track2.expiry"] = nil
        #expect(GoldenRecords.differences(actual: [missing], expected: [wildcard]).map(\.property) == ["fields.track2.expiry"])
        #expect(GoldenRecords.differences(actual: [swipe], expected: [missing]).map(\.actual) == ["2512"])
        var noFields = swipe
        noFields.fields = nil
        #expect(GoldenRecords.differences(actual: [swipe], expected: [noFields]) == [])
    }

    /// A golden file may leave out what varies, such as timestamps; what it states must hold.
    @Test func whatTheExpectedRecordLeavesOutIsNotCompared() {
        var expected = swipe
        expected.timestamp = nil
        expected.statusName = nil
        #expect(GoldenRecords.differences(actual: [swipe], expected: [expected]) == [])
        var other = swipe
        other.timestamp = 0.5
        #expect(GoldenRecords.differences(actual: [other], expected: [swipe]).map(\.property) == ["timestamp"])
    }

    @Test func aMissingOrExtraRecordIsCounted() {
        let differences = GoldenRecords.differences(actual: [swipe, swipe], expected: [swipe])
        #expect(differences == [GoldenRecords.Difference(record: 2, property: "records", expected: "1", actual: "2")])
    }
}
