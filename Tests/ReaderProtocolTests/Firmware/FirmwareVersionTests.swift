import ReaderProtocol
import Testing

/// Versions as dotted numbers. The expected orders are by definition (number by number, a
/// missing number 0), chosen where comparing the text would give the other answer.
struct FirmwareVersionTests {
    @Test(arguments: [
        ("3.10.0", "3.9.1"), ("10.0", "9.9.9"), ("2.5.0", "2.4.10"), ("3.1.1", "3.1"), ("v3.0", "2.99.99"),
    ])
    func ordersNumberByNumber(newer: String, older: String) throws {
        let (new, old) = (try #require(FirmwareVersion(newer)), try #require(FirmwareVersion(older)))
        #expect(old < new && !(new < old) && new != old)
    }

    @Test(arguments: [("3.1", "3.1.0"), ("3", "3.0.0.0"), ("v2.4.1", " 2.4.1 "), ("03.01", "3.1")])
    func aMissingNumberIsZero(left: String, right: String) throws {
        let (a, b) = (try #require(FirmwareVersion(left)), try #require(FirmwareVersion(right)))
        #expect(a == b && !(a < b) && !(b < a))
        #expect(Set([a, b]).count == 1, "equal versions hash alike")
    }

    /// What does not read as dotted numbers has no version: no order is guessed.
    @Test(arguments: ["", "v", "3.1.0-beta", "3..1", "3.1.", ".3", "three", "3.1 rc", "1234567890.1", "-1.0", "3,1"])
    func whatIsNotDottedNumbersHasNoVersion(text: String) {
        #expect(FirmwareVersion(text) == nil)
    }

    @Test func itPrintsItsNumbers() {
        #expect(FirmwareVersion("v3.01.0")?.description == "3.1.0")
    }
}
