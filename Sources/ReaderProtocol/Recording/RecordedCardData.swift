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
    /// not know outside an FCI, response data that is not data objects, damaged or
    /// undecodable frames, or PIN data.
    public private(set) var holdsCardData = false
    /// Whether a command carried PIN data (VERIFY, PIN CHANGE/UNBLOCK): a recording with it
    /// is never kept, not even when revealing.
    public private(set) var pinData = false

    /// An empty account.
    public init() {}

    /// The card data of every frame `packets` hold.
    public init(packets: [RecordedPacket]) {
        for entry in RecordingDecoder.decode(packets) { add(entry) }
    }

    /// Whether the recording may be kept without revealing: it holds no card data, or card
    /// data whose every card number is a published test number.
    public var holdsOnlyTestCards: Bool {
        !pinData && (!holdsCardData || (!cardNumbers.isEmpty && cardNumbers.allSatisfy(TestCardNumbers.contains)))
    }

    /// Counts one decoded entry. Damage, and frames whose DATA does not decode, count as
    /// card data whose card cannot be told: their bytes are in the recording all the same.
    /// So do commands that carry PIN data (``pinData``).
    public mutating func add(_ entry: RecordingDecoder.Entry) {
        let message: ReaderMessage
        switch entry.content {
        case .damage:
            holdsCardData = true
            return
        case .frame(_, _, .failure):
            holdsCardData = true
            return
        case .frame(_, _, .success(let decoded)):
            message = decoded
        }
        if case .command(.iccAPDU(let apdu)) = message, apdu.carriesPINData, !apdu.data.isEmpty {
            pinData = true
            holdsCardData = true
        }
        guard case .response(let response) = message else { return }
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
            add(objects, atTopLevel: true, insideFileControlInformation: false)
        default:
            break
        }
    }

    private mutating func add(_ objects: [BERTLV], atTopLevel: Bool, insideFileControlInformation: Bool) {
        for object in objects {
            switch object.content {
            case .constructed(let children):
                let selectionData = EMVDataRenderer.holdsSelectionData(
                    object.tag, atTopLevel: atTopLevel, insideSelectionData: insideFileControlInformation)
                add(children, atTopLevel: false, insideFileControlInformation: selectionData)
            case .primitive(let value):
                // What the renderer would mask is card data.
                let protection = EMVDataRenderer.protection(of: object.tag, insideSelectionData: insideFileControlInformation)
                guard protection != .none else { continue }
                holdsCardData = true
                if let reading = EMVTag.lookup(object.tag)?.reading,
                    let pan = CardDataValue.primaryAccountNumber(value, reading: reading)
                {
                    found(pan)
                }
            }
        }
    }

    private mutating func found(_ pan: PrimaryAccountNumber) {
        if !cardNumbers.contains(pan) { cardNumbers.append(pan) }
    }
}
