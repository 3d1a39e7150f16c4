import CardReaderKit
import CardReaderKitTesting
import Foundation
import Testing

/// Card files: each mirrors a built-in profile; malformed files fail with a typed error
/// that names the problem and never quotes card data.
@Suite struct EmulatedCardFileTests {
    private static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/cards")

    @Test(arguments: EmulatedCard.builtIn.map(\.name))
    func eachFileDecodesToTheBuiltInProfileItMirrors(name: String) throws {
        let card = try EmulatedCard(contentsOf: Self.folder.appendingPathComponent("\(name).json"))
        #expect(card == EmulatedCard.builtIn(named: name))
    }

    @Test func everyCardFileHasABuiltInProfile() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".json") }
        #expect(Set(files.map { String($0.dropLast(5)) }) == Set(EmulatedCard.builtIn.map(\.name)))
    }

    @Test func builtInProfilesAreWellFormed() throws {
        for card in EmulatedCard.builtIn {
            if let stripe = card.magneticStripe {
                #expect(stripe.track1.track != nil, "\(card.name)")
                #expect(stripe.track2.track != nil, "\(card.name)")
            }
            if let chip = card.chip {
                #expect(try AnswerToReset(bytes: chip.answerToReset).protocols == [0], "\(card.name)")
            }
        }
        #expect(EmulatedCard.visaTest.chip?.applications.first?.identifier == [0xA0, 0, 0, 0, 0x03, 0x10, 0x10])
        #expect(EmulatedCard.mastercardTest.chip?.applications.first?.label == "MASTERCARD")
    }

    @Test func descriptionsShowNoCardData() {
        let text = "\(EmulatedCard.visaTest) \(String(reflecting: EmulatedCard.visaTest))"
        #expect(text == "visa-test (stripe, chip: 1 application) EmulatedCard(visa-test (stripe, chip: 1 application))")
    }

    private static func decode(_ json: String) -> EmulatedCardFileError? {
        do {
            _ = try EmulatedCard(json: Data(json.utf8), file: "bad.json")
            return nil
        } catch {
            return error
        }
    }

    @Test func malformedFilesNameTheProblemButNotTheData() throws {
        let pan = "4111111111111111"
        let cases: [(String, EmulatedCardFileError.Problem)] = [
            ("{", .notJSON),
            (#"{"format": 1}"#, .missingField("name")),
            (#"{"format": 2, "name": "x", "magneticStripe": {}}"#, .unsupportedFormat(2)),
            (#"{"format": 1, "name": "x"}"#, .blankCard),
            (#"{"format": 1, "name": "x", "magneticStripe": {"trak2": ";4111111111111111=2512?"}}"#,
             .unknownField("magneticStripe.trak2")),
            (
                #"{"format": 1, "name": "x", "chip": {"atr": "3B00", "applications": [{"aid": "A0000000031010", "label": "V", "PDOL": "9F3704", "aip": "1C00", "records": []}]}}"#,
                .unknownField("chip.applications[0].PDOL")
            ),
            (#"{"format": 1, "name": "x", "magneticStripe": {"track2": 4111111111111111}}"#, .wrongType("magneticStripe.track2")),
            (#"{"format": 1, "name": "x", "magneticStripe": {"track2": "4111111111111111=2512?"}}"#,
             .invalidTrack(MagneticTrackError(track: 2, problem: .missingStartSentinel))),
            (#"{"format": 1, "name": "x", "chip": {"atr": "3B6F", "applications": []}}"#,
             .invalidATR("15 historical bytes announced, fewer present")),
            (#"{"format": 1, "name": "x", "chip": {"atr": "3B00", "applications": []}}"#,
             .invalidValue(field: "chip.applications", rule: "a chip needs at least one application")),
            (
                #"{"format": 1, "name": "x", "chip": {"atr": "3B00", "applications": [{"aid": "A0000000031010", "label": "V", "aip": "1C00", "records": [{"sfi": 1, "record": 1, "objects": [{"tag": "5A", "value": "4111111111111111G"}]}]}]}}"#,
                .invalidHex("chip.applications[0].records[0].objects[0].value")
            ),
            (
                #"{"format": 1, "name": "x", "chip": {"atr": "3B00", "applications": [{"aid": "A0000000031010", "label": "V", "aip": "1C00", "records": [{"sfi": 31, "record": 1, "objects": []}]}]}}"#,
                .invalidValue(field: "chip.applications[0].records[0].sfi", rule: "an SFI is 1…30")
            ),
            (
                #"{"format": 1, "name": "x", "chip": {"atr": "3B00", "applications": [{"aid": "A000", "label": "V", "aip": "1C00", "records": []}]}}"#,
                .invalidValue(field: "chip.applications[0].aid", rule: "an AID has 5 to 16 bytes")
            ),
        ]
        for (json, problem) in cases {
            let error = Self.decode(json)
            #expect(error == EmulatedCardFileError(file: "bad.json", problem: problem), "\(json)")
            #expect(error?.description.hasPrefix("card file bad.json: ") == true)
            #expect(error?.description.contains(pan) == false)
        }
    }

    @Test func aMissingFileIsUnreadable() {
        #expect(throws: EmulatedCardFileError(file: "absent.json", problem: .unreadable)) {
            try EmulatedCard(contentsOf: Self.folder.appendingPathComponent("absent.json"))
        }
    }

    @Test func theFileLocatorCoversRunsOfRecords() throws {
        var application = try #require(EmulatedCard.visaTest.chip?.applications.first)
        application.records = [1, 2, 4].map { EmulatedCard.Record(shortFileIdentifier: 3, number: $0, objects: []) }
            + [EmulatedCard.Record(shortFileIdentifier: 1, number: 1, objects: [])]
        // SFI 1 record 1; SFI 3 records 1–2 and 4 (SFI << 3: 08, 18).
        #expect(application.fileLocator.encoded() == [0x08, 1, 1, 0, 0x18, 1, 2, 0, 0x18, 4, 4, 0])
    }
}
