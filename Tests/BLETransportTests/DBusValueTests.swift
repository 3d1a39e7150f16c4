import BLETransport
import Testing

@Suite("D-Bus values, signatures and match rules (no daemon)")
struct DBusValueTests {
    @Test func signatureSplitsIntoCompleteTypes() {
        #expect(DBusSignature("a{sv}as(iay)y").completeTypes == ["a{sv}", "as", "(iay)", "y"])
        #expect(DBusSignature("a{oa{sa{sv}}}").isSingleCompleteType)
        #expect(DBusSignature("").completeTypes == [])
        for invalid in ["a", "a{vs}", "()", "(i", "a{s}", "{sv}", "z", "a{sva}"] {
            #expect(!DBusSignature(invalid).isValid, "\(invalid) should be invalid")
        }
    }

    @Test func valueSignatures() {
        let managed = DBusValue.dictionary(
            keySignature: "o", valueSignature: "a{sa{sv}}", entries: [])
        #expect(managed.signature == "a{oa{sa{sv}}}")
        #expect(DBusValue.structure([.int32(1), .bytes([1]), .variant(.string("x"))]).signature == "(iayv)")
        #expect(DBusValue.stringVariantDictionary(["a": .uint16(1)]).signature == "a{sv}")
    }

    @Test func objectPathSyntax() {
        #expect(DBusObjectPath("/").isValid)
        #expect(DBusObjectPath("/org/bluez/hci0/dev_AA_BB").isValid)
        for invalid in ["", "org", "/a/", "//a", "/a-b", "/a//b"] {
            #expect(!DBusObjectPath(invalid).isValid, "\(invalid) should be invalid")
        }
        #expect(DBusObjectPath("/a").isAncestor(of: "/a/b"))
        #expect(!DBusObjectPath("/a").isAncestor(of: "/ab"))
        #expect(DBusObjectPath.root.isAncestor(of: "/x"))
        #expect(DBusObjectPath("/a").appending("b") == "/a/b")
    }

    @Test func invalidValuesAreRejectedBeforeLibdbus() {
        let invalid: [DBusValue] = [
            .objectPath("not/a/path"),
            .structure([]),
            .string("nul\u{0}inside"),
            .array(elementSignature: "s", elements: [.int32(1)]),
            .dictionary(keySignature: "v", valueSignature: "s", entries: []),
            .signature("a{"),
        ]
        for value in invalid {
            let error = #expect(throws: DBusError.self) { try value.validate() }
            #expect(error?.kind == "marshalling", "\(value)")
        }
        #expect(throws: Never.self) { try DBusValue.stringVariantDictionary(["k": .bytes([1])]).validate() }
    }

    @Test func matchRuleTextAndLocalMatching() {
        let rule = DBusMatchRule.propertiesChanged(sender: "org.bluez", pathNamespace: "/org/bluez", interface: "org.bluez.Device1")
        #expect(rule.description == "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
            + "member='PropertiesChanged',path_namespace='/org/bluez',arg0='org.bluez.Device1'")
        #expect(DBusMatchRule(member: "it's").description == "type='signal',member='it'\\''s'")

        var signal = DBusMessage.signal(
            path: "/org/bluez/hci0/dev_1", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            body: [.string("org.bluez.Device1"), .stringVariantDictionary([:]), .stringArray([])])
        signal.sender = ":1.5"
        #expect(rule.matches(signal))
        signal.body[0] = .string("org.bluez.Adapter1")
        #expect(!rule.matches(signal))
        signal.body[0] = .string("org.bluez.Device1")
        signal.path = "/org/other"
        #expect(!rule.matches(signal))
        #expect(!DBusMatchRule(sender: ":1.9").matches(signal))
    }

    @Test func typedAccessorsDecodeBlueZShapes() {
        let properties = DBusValue.stringVariantDictionary([
            "Address": .string("AA:BB"), "RSSI": .int16(-60), "UUIDs": .stringArray(["180d"]),
            "ManufacturerData": .dictionary(
                keySignature: "q", valueSignature: "v",
                entries: [DBusDictionaryEntry(key: .uint16(0x004C), value: .variant(.bytes([1, 2])))]),
        ])
        let managed = DBusValue.dictionary(
            keySignature: "o", valueSignature: "a{sa{sv}}",
            entries: [DBusDictionaryEntry(
                key: .objectPath("/org/bluez/hci0/dev_AA_BB"),
                value: .dictionary(
                    keySignature: "s", valueSignature: "a{sv}",
                    entries: [DBusDictionaryEntry(key: .string("org.bluez.Device1"), value: properties)]))])
        let objects = managed.managedObjectsValue
        let device = objects?["/org/bluez/hci0/dev_AA_BB"]?["org.bluez.Device1"]
        #expect(device?["RSSI"]?.int16Value == -60)
        #expect(device?["RSSI"]?.intValue == -60)
        #expect(device?["Address"]?.stringValue == "AA:BB")
        #expect(device?["UUIDs"]?.stringArrayValue == ["180d"])
        #expect(device?["ManufacturerData"]?.dictionaryEntries?.first?.value.bytesValue == [1, 2])
        #expect(device?["RSSI"]?.stringValue == nil)
    }
}
