/// The card data a recording holds, found by the same policy that masks it
/// (``EMVDataRenderer``): card numbers in swiped tracks and in APDU data objects, and whether
/// anything else in it may be card data whose card cannot be told.
///
/// Tools use it to decide whether a recording may be kept without an explicit reveal: when
/// every card number in it is a published test number (``TestCardNumbers``).
public struct RecordedCardData: Sendable {
    /// The card numbers found, in order, each once.
    public private(set) var cardNumbers: [PrimaryAccountNumber] = []
    /// Whether the recording holds card data: tracks, card-data tags, tags the catalogue does
    /// not know outside an FCI, or response data that is not data objects.
    public private(set) var holdsCardData = false

    /// An empty account.
    public init() {}

    /// The card data of every frame `packets` hold.
    public init(packets: [RecordedPacket]) {
        for entry in RecordingDecoder.decode(packets) { add(entry) }
    }

    /// Whether the recording may be kept without revealing: it holds no card data, or card
    /// data whose every card number is a published test number.
    public var holdsOnlyTestCards: Bool {
        !holdsCardData || (!cardNumbers.isEmpty && cardNumbers.allSatisfy(TestCardNumbers.contains))
    }

    /// Counts one decoded entry.
    public mutating func add(_ entry: RecordingDecoder.Entry) {
        guard case .frame(_, _, .success(.response(let response))) = entry.content else { return }
        switch response.body {
        case .magneticStripe(let tracks):
            holdsCardData = true
            if case .parsed(let track) = tracks.track1 { found(track.primaryAccountNumber) }
            if case .parsed(let track) = tracks.track2 { found(track.primaryAccountNumber) }
        case .apdu(let apdu) where !apdu.data.isEmpty:
            guard let objects = try? BERTLV.parse(apdu.data) else {
                holdsCardData = true
                return
            }
            add(objects, insideFileControlInformation: false)
        default:
            break
        }
    }

    private mutating func add(_ objects: [BERTLV], insideFileControlInformation: Bool) {
        for object in objects {
            let known = EMVTag.lookup(object.tag)
            switch object.content {
            case .constructed(let children):
                add(children, insideFileControlInformation: insideFileControlInformation
                    || object.tag == EMVTag.fileControlInformationTemplate.tag)
            case .primitive(let value):
                guard let known else {
                    if !insideFileControlInformation { holdsCardData = true }
                    continue
                }
                guard known.protection != .none else { continue }
                holdsCardData = true
                if let pan = CardDataValue.primaryAccountNumber(value, reading: known.reading) { found(pan) }
            }
        }
    }

    private mutating func found(_ pan: PrimaryAccountNumber) {
        if !cardNumbers.contains(pan) { cardNumbers.append(pan) }
    }
}
